import { z } from 'zod';

export const UPSTREAM_SOURCE_KINDS = ['github_pvr', 'security_txt', 'security_md', 'security_insights', 'cradle_declaration'] as const;
export const UpstreamSourceKind = z.enum(UPSTREAM_SOURCE_KINDS).meta({ id: 'UpstreamSourceKind' });
export type UpstreamSourceKind = z.infer<typeof UpstreamSourceKind>;

/** Who to tell about a flaw in a component, and where Cradle learnt it (docs/upstream.md). */
export const UpstreamContact = z
  .object({
    channel: z
      .enum(['github', 'email', 'cradle', 'url'])
      .describe('How to reach them: GitHub private vulnerability reporting, e-mail, this Cradle instance, or a web page'),
    address: z.string().describe("`owner/repo` (github), an e-mail address, a company's portal slug (cradle), or an https URL (url)"),
    encryptionKey: z.string().optional().describe('The armored OpenPGP public key the source points to, checked (not expired or revoked)'),
    source: z.object({ kind: UpstreamSourceKind, url: z.string() }).describe('Where the contact was found'),
  })
  .meta({ id: 'UpstreamContact' });
export type UpstreamContact = z.infer<typeof UpstreamContact>;

export const UpstreamSourceAttempt = z
  .object({
    kind: UpstreamSourceKind,
    url: z.string().nullable().describe('What was asked (null when the source did not apply)'),
    outcome: z.enum(['found', 'not_found', 'failed', 'skipped']),
    detail: z.string().describe('Why: what was found, what was missing, or how the request failed'),
  })
  .meta({ id: 'UpstreamSourceAttempt' });
export type UpstreamSourceAttempt = z.infer<typeof UpstreamSourceAttempt>;

export const UpstreamDiscovery = z
  .object({
    purl: z.string(),
    repository: z.string().nullable().describe("The component's source repository, from the SBOM's references or the package URL"),
    website: z.string().nullable().describe("The project's site, from the SBOM's references (where security.txt is looked for)"),
    contacts: z
      .array(UpstreamContact)
      .describe('In the order of preference: GitHub reporting, security.txt, SECURITY.md, security-insights.yml, a company on this instance'),
    sources: z.array(UpstreamSourceAttempt).describe('Every source, in the order asked, with its outcome'),
  })
  .meta({ id: 'UpstreamDiscovery' });
export type UpstreamDiscovery = z.infer<typeof UpstreamDiscovery>;

export const UpstreamContactsQuery = z
  .object({
    purl: z.string().min(1).max(2048).describe('The package URL of the component (pkg:npm/left-pad@1.3.0)'),
  })
  .meta({ id: 'UpstreamContactsQuery' });

/** The CSAF 2.0 involvement statuses (`/vulnerabilities[]/involvements[]/status`). */
export const INVOLVEMENT_STATUSES = ['not_contacted', 'contact_attempted', 'open', 'in_progress', 'completed', 'disputed'] as const;
export type InvolvementStatus = (typeof INVOLVEMENT_STATUSES)[number];
