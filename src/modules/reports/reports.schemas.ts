import { z } from 'zod';
import { checkArmouredPublicKey } from './pgp-key.js';
import { VULNERABILITY_TYPES } from './vulnerability-types.js';

export { VULNERABILITY_TYPES, VULNERABILITY_TYPE_INFO, type VulnerabilityType } from './vulnerability-types.js';

/**
 * Field limits, in UTF-8 bytes (what the database and the wire carry), shared by every surface.
 * Published as `maxLength` (a character count, never more than the byte count, so the same number is
 * a bound a client can check) and as the `x-max-bytes` extension, the limit itself.
 */
export const REPORT_LIMITS = {
  description: 64 * 1024,
  productName: 255,
  stepsToReproduce: 32 * 1024,
  impact: 16 * 1024,
  contactEmail: 254,
  pgpKey: 64 * 1024,
} as const;

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const sizeText = (n: number): string => (n >= 1024 ? `${n / 1024} KiB` : `${n} bytes`);
/** A limit as the descriptions state it: `64 KiB (65536 bytes)`, `255 bytes`. */
const limitText = (n: number): string => (n >= 1024 ? `${sizeText(n)} (${n} bytes)` : sizeText(n));
/** The JSON Schema extension keyword stating a limit in UTF-8 bytes (docs/api.md "Limits"). */
export const maxBytes = (n: number) => ({ 'x-max-bytes': n });

const PGP_BLOCK = /^\s*-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]*-----END PGP PUBLIC KEY BLOCK-----\s*$/;

/**
 * An optional text field. A form cannot omit a field, so an empty or blank string (and a JSON
 * null) means "not given"; given text is trimmed at both ends.
 */
function optionalText(name: keyof typeof REPORT_LIMITS, inner?: z.ZodString | z.ZodEmail) {
  const max = REPORT_LIMITS[name];
  const message = `${name} must be at most ${sizeText(max)}`;
  const base = (inner ?? z.string({ error: `${name} must be a string` }))
    .max(max, { message, abort: true })
    .refine((s) => bytes(s) <= max, { message, abort: true })
    .meta(maxBytes(max));
  return z.preprocess((v) => (v === null ? undefined : typeof v === 'string' ? v.trim() || undefined : v), base.optional());
}

/**
 * The report fields of docs/intake.md "Report fields", validated the same way on the portal
 * form, in each bulk item, and (later) on the REST and MCP surfaces.
 */
export const ReportFields = z
  .object({
    description: z
      .string({ error: (i) => (i.input === undefined ? 'description is required' : 'description must be a string') })
      .max(REPORT_LIMITS.description, { message: `description must be at most ${sizeText(REPORT_LIMITS.description)}`, abort: true })
      .refine((s) => s.trim().length > 0, { message: 'description must not be empty', abort: true })
      .refine((s) => bytes(s) <= REPORT_LIMITS.description, { message: `description must be at most ${sizeText(REPORT_LIMITS.description)}` })
      .meta({
        description: `What is vulnerable and how. Required, not blank; at most ${limitText(REPORT_LIMITS.description)} of UTF-8.`,
        example: 'The web UI of the T2 thermostat accepts any password for the admin account.',
        ...maxBytes(REPORT_LIMITS.description),
      }),
    productName: optionalText('productName').meta({
      description: `The affected product, ideally as listed on the portal. At most ${limitText(REPORT_LIMITS.productName)} of UTF-8.`,
      example: 'Smart Thermostat T2',
    }),
    vulnerabilityType: z
      .preprocess(
        (v) => (v === null || v === '' ? undefined : v),
        z.enum(VULNERABILITY_TYPES, { error: `vulnerabilityType must be one of: ${VULNERABILITY_TYPES.join(', ')}` }).optional(),
      )
      .meta({ description: 'Broad class of the weakness; one of the enumerated values.', example: 'authentication_bypass' }),
    stepsToReproduce: optionalText('stepsToReproduce').meta({
      description: `How to reproduce the issue. At most ${limitText(REPORT_LIMITS.stepsToReproduce)} of UTF-8.`,
    }),
    impact: optionalText('impact').meta({ description: `What an attacker can achieve. At most ${limitText(REPORT_LIMITS.impact)} of UTF-8.` }),
    contactEmail: optionalText('contactEmail', z.email({ error: 'contactEmail must be an e-mail address' })).meta({
      description: `Where the company can reach the reporter (an e-mail address, at most ${REPORT_LIMITS.contactEmail} bytes). Optional: anonymous reports are accepted.`,
      example: 'researcher@example.org',
    }),
    pgpKey: optionalText(
      'pgpKey',
      z.string({ error: 'pgpKey must be a string' }).superRefine((s, ctx) => {
        const r = checkArmouredPublicKey(s);
        if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
      }),
    ).meta({
      description:
        "The reporter's OpenPGP public key, so replies can be encrypted: one ASCII-armoured public key block (RFC 9580 section 6.2) as exported by `gpg --armor --export`, from the line `-----BEGIN PGP PUBLIC KEY BLOCK-----` through optional armour headers, a blank line, the radix-64 lines and an optional `=XXXX` checksum to `-----END PGP PUBLIC KEY BLOCK-----`. " +
        `A private key block is refused. At most ${limitText(REPORT_LIMITS.pgpKey)}.`,
      pattern: PGP_BLOCK.source,
    }),
  })
  .strict()
  .meta({ id: 'ReportFields', description: 'A vulnerability report as a researcher files it.' });
export type ReportFields = z.output<typeof ReportFields>;

/**
 * Where a report came from; recorded on the report and in its audit row. `dashboard`: opened by a
 * signed-in member in the dashboard (a confirmed known-vulnerability awareness decision);
 * `coordination`: notified by another company on this instance from a coordination case
 * (docs/coordination.md).
 */
export const REPORT_SOURCES = ['portal_form', 'bulk', 'api', 'mcp', 'dashboard', 'coordination'] as const;
export type ReportSource = (typeof REPORT_SOURCES)[number];

/** The status every report starts in; triage (another issue) moves it on. */
export const INITIAL_REPORT_STATUS = 'new';

const Instant = z.iso.datetime().meta({ description: 'ISO 8601, UTC, milliseconds.' });

/** A filed report as the surfaces show it to the company (and, in the webhook, to its systems): absent fields omitted. */
export const FiledReport = z
  .object({
    submissionId: z.uuid(),
    createdAt: Instant,
    status: z.string(),
    source: z.enum(REPORT_SOURCES),
    description: z.string(),
    productName: z.string().optional(),
    vulnerabilityType: z.enum(VULNERABILITY_TYPES).optional(),
    stepsToReproduce: z.string().optional(),
    impact: z.string().optional(),
    contactEmail: z.string().optional(),
    pgpKey: z.string().optional(),
  })
  .meta({ id: 'FiledReport', description: 'The report just filed (also the `data` of the `vulnerability.reported` webhook).' });
export type FiledReport = z.infer<typeof FiledReport>;

const text = () => z.string().nullable();

/** A report as the company's surfaces show it: every field and triage fact, never the status token digest. */
export const Report = z
  .object({
    submissionId: z.uuid(),
    createdAt: Instant,
    updatedAt: Instant,
    status: z
      .string()
      .meta({ description: 'Lifecycle state: new, triaging, accepted, fixing, fixed, disclosed, duplicate, not_applicable, spam or informative.' }),
    source: z.string().meta({
      description:
        'Where it was filed: portal_form, bulk, api, mcp, dashboard (opened by a member in the dashboard), or coordination (a case of another company on this instance).',
    }),
    description: z.string(),
    productName: text(),
    vulnerabilityType: text(),
    stepsToReproduce: text(),
    impact: text(),
    contactEmail: text(),
    pgpKey: text(),
    severity: text().meta({ description: 'critical, high, medium, low or none, from the CVSS vector.' }),
    cvssVector: text(),
    cvssScore: z.number().nullable(),
    cwe: text(),
    componentPurl: text().meta({
      description: 'The third-party component the flaw lies in (a package URL): CRA Article 13(6) asks that its maintainer be notified (docs/compliance.md).',
    }),
    duplicateOf: z.uuid().nullable(),
    activelyExploited: z.boolean().nullable(),
    exploitationEvidence: text(),
    awareAt: Instant.nullable(),
    severeIncident: z.boolean().nullable(),
    fixAvailableAt: Instant.nullable(),
    memberStates: z.array(z.string()),
    assigneeId: z.uuid().nullable().meta({ description: 'The member who handles the report (a user id); null when nobody does.' }),
  })
  .meta({ id: 'Report' });
export type Report = z.infer<typeof Report>;

export const ReportPage = z
  .object({
    reports: z.array(Report),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
  })
  .meta({ id: 'ReportPage' });
