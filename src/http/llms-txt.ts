import { readFileSync } from 'node:fs';
import { type Config, siteUrl } from '../config.js';
import type { Skill } from './agent-skills.js';
import { API_CATALOG_PATH } from './api-catalog.js';

// src/http and dist/http sit at the same depth, so this resolves from both.
const DOCS_DIR = new URL('../../docs/', import.meta.url);

/** The Markdown pages served at `/docs/<name>.md` (llms.txt links them), with a one-line note each. */
export const PUBLIC_DOCS: Record<string, { title: string; note: string; optional?: boolean }> = {
  api: { title: 'API conventions', note: 'ids, times, pagination, errors, rate limits and the company export' },
  intake: { title: 'Researcher intake', note: 'the public portal, its form, security.txt and the bulk endpoint' },
  access: { title: 'Access and API keys', note: 'scopes, key rules, allowlists, limits and the audit log', optional: true },
  evidence: { title: 'SBOM and SARIF ingestion', note: 'accepted formats, limits, versions, diffs and findings', optional: true },
};

export const loadDocs = (): Map<string, Buffer> => new Map(Object.keys(PUBLIC_DOCS).map((name) => [name, readFileSync(new URL(`${name}.md`, DOCS_DIR))]));

/** `/llms.txt` (llmstxt.org): one H1, a summary, then H2 sections of links. */
export function llmsTxt(config: Config, skills: Skill[]): string {
  const site = siteUrl(config);
  const docs = (optional: boolean) =>
    Object.entries(PUBLIC_DOCS)
      .filter(([, d]) => !!d.optional === optional)
      .map(([name, d]) => `- [${d.title}](${site}/docs/${name}.md): ${d.note}`);
  return [
    '# Cradle',
    '',
    '> Coordinated vulnerability disclosure and EU Cyber Resilience Act compliance for manufacturers of products with digital elements: a public report portal per company, and a REST API and MCP server through which the company (or its agents) handles reports, products, SBOMs, scan findings and compliance.',
    '',
    `The REST API is at ${site}/api/v1 and takes \`Authorization: Bearer <key>\` (keys are issued by a company administrator in the dashboard, with scopes). The MCP server is at ${site}/api/mcp with the same key. Researchers need no key: each company's portal is at ${config.publicUrl.protocol}//{slug}.${config.publicUrl.host}, and ${site}/api/portal/batch files up to 20 reports to several companies at once.`,
    '',
    '## API',
    '',
    `- [OpenAPI 3.1 description](${site}/openapi.json): every endpoint with its scope, request and response schemas and errors`,
    `- [API reference](${site}/docs/api): the same document, readable`,
    `- [API catalog](${site}${API_CATALOG_PATH}): RFC 9727 linkset of the REST API, the MCP server and the bulk endpoint`,
    ...docs(false),
    '',
    '## Skills',
    '',
    ...skills.map((s) => `- [${s.name}](${site}${s.path}): ${s.description}`),
    '',
    '## Optional',
    '',
    ...docs(true),
    '',
  ].join('\n');
}
