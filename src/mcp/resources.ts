import type { McpServer } from '@modelcontextprotocol/server';
import { portalUrl } from '../config.js';
import { CATALOG_VERSION, GROUPS, REQUIREMENTS } from '../modules/compliance/catalog.js';
import { oscalCatalog } from '../modules/compliance/oscal-catalog.js';
import { getCompanyById } from '../modules/companies/get-company.js';
import type { McpCall } from './tools.js';

export const RESOURCE_URIS = {
  catalog: 'cradle://cra/catalog',
  oscal: 'cradle://cra/catalog/oscal',
  policy: 'cradle://company/disclosure-policy',
} as const;

const json = (uri: string, value: unknown) => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] });

/**
 * Read-only context for agents. The CRA catalog is the same for every company; the disclosure
 * policy is what the company's portal and security.txt already publish, so neither needs a scope
 * beyond an accepted key. Each read is audited like every MCP request (method and URI).
 */
export function registerResources(server: McpServer, call: McpCall): void {
  server.registerResource(
    'cra-catalog',
    RESOURCE_URIS.catalog,
    {
      title: 'CRA requirement catalog',
      description: `The Cyber Resilience Act requirements Cradle evaluates (catalog ${CATALOG_VERSION}): id, group, legal reference, how each is evaluated, what evidence it rests on and what closes a gap. The compliance tools refer to requirements by these ids.`,
      mimeType: 'application/json',
    },
    (uri) => json(uri.href, { version: CATALOG_VERSION, groups: GROUPS, requirements: REQUIREMENTS }),
  );
  server.registerResource(
    'cra-catalog-oscal',
    RESOURCE_URIS.oscal,
    {
      title: 'CRA requirement catalog (OSCAL)',
      description: 'The same catalog as an OSCAL catalog document: one group per Annex part or Article, one control per requirement.',
      mimeType: 'application/json',
    },
    (uri) => json(uri.href, oscalCatalog(new Date())),
  );
  server.registerResource(
    'disclosure-policy',
    RESOURCE_URIS.policy,
    {
      title: "The company's vulnerability disclosure policy",
      description:
        'The policy text and link, security contact, languages and preferred report format the researcher portal publishes, with the portal, submission form and security.txt addresses.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const c = await getCompanyById(call.app.deps.database.db, call.key.companyId);
      const portal = portalUrl(call.app.deps.config, c.slug);
      return json(uri.href, {
        company: c.name,
        policyText: c.policyText,
        policyUrl: c.policyUrl,
        securityEmail: c.securityEmail,
        languages: c.languages,
        preferredReportFormat: c.preferredReportFormat,
        hasPgpKey: c.pgpPublicKey !== null,
        portalUrl: portal,
        submitUrl: `${portal}/submit`,
        securityTxtUrl: `${portal}/.well-known/security.txt`,
      });
    },
  );
}
