import { type Config, siteUrl } from '../config.js';
import { API_BASE } from './api-routes.js';

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

const OPENAPI_TYPE = 'application/vnd.oai.openapi+json;version=3.1';

/**
 * `/.well-known/api-catalog` (RFC 9727): a linkset with one context object per API. All three are
 * described by the one OpenAPI document (the bulk endpoint is in it too); MCP describes its own
 * tools over the protocol, so its `service-desc` is the endpoint itself.
 */
export function apiCatalog(config: Config) {
  const site = siteUrl(config);
  const openapi = [{ href: `${site}/openapi.json`, type: OPENAPI_TYPE }];
  const status = [{ href: `${site}/healthz`, type: 'application/json' }];
  return {
    linkset: [
      {
        anchor: `${site}${API_BASE}`,
        'service-desc': openapi,
        'service-doc': [
          { href: `${site}/docs/api`, type: 'text/html' },
          { href: `${site}/docs/api.md`, type: 'text/markdown' },
        ],
        status,
      },
      { anchor: `${site}/api/mcp`, 'service-doc': [{ href: `${site}/.well-known/agent-skills/use-cradle-mcp/SKILL.md`, type: 'text/markdown' }], status },
      {
        anchor: `${site}/api/portal/batch`,
        'service-desc': openapi,
        'service-doc': [{ href: `${site}/.well-known/agent-skills/file-vulnerability-report/SKILL.md`, type: 'text/markdown' }],
        status,
      },
    ],
  };
}
