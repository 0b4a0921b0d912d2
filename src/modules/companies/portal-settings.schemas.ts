import { z } from 'zod';

export const POLICY_MAX_CHARS = 20_000;
export const SAFE_HARBOUR_MAX_CHARS = 10_000;
export const ACKNOWLEDGMENTS_MAX_CHARS = 10_000;

/**
 * `20,000`: what `toLocaleString('en')` writes for a whole number, without it. Intl's number format
 * maps several MiB of ICU's locale data into the process, which these messages, built at start,
 * would keep resident in every idle server (ADR 0027).
 */
export const groupDigits = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/** Blank text means "not given": the form sends empty fields, the API may send "" or null. */
const optionalText = (max: number, what: string) =>
  z
    .string()
    .max(max, `${what} is too long: at most ${groupDigits(max)} characters`)
    .transform((s) => (s.trim() === '' ? null : s.replace(/\r\n/g, '\n').trim()))
    .nullable()
    .optional();

const Language = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'expected language tags such as en, de or pt-BR');
const Days = z
  .number({ error: 'a whole number of days' })
  .int('a whole number of days')
  .min(1, 'at least 1 day')
  .max(365, 'at most 365 days')
  .nullable()
  .optional();

export const ResponseTimes = z
  .object({
    acknowledgeDays: Days.meta({ description: 'Days within which a report is acknowledged.', example: 3 }),
    assessDays: Days.meta({ description: 'Days within which the researcher hears the first assessment.', example: 10 }),
    resolveDays: Days.meta({ description: 'Days within which a fix or mitigation is targeted.', example: 90 }),
  })
  .strict()
  .meta({ id: 'ResponseTimes', description: 'Expected response times shown to researchers on the portal; null: not stated.' });

/**
 * `PATCH /portal-settings`: every field optional; an omitted field keeps its value, null (or a blank
 * string) clears it. The same schema checks the dashboard form, which sends every field.
 */
export const PortalSettingsInput = z
  .object({
    policyText: optionalText(POLICY_MAX_CHARS, 'the disclosure policy').meta({
      description: 'The disclosure policy in Markdown (CommonMark; raw HTML is refused, images are not shown).',
      example: '## Scope\n\nAll products listed on this portal.\n\n## Disclosure\n\nWe publish an advisory within 90 days.',
    }),
    policyUrl: z
      .string()
      .trim()
      .max(2048, 'the policy URL is too long: at most 2,048 characters')
      .transform((s) => (s === '' ? null : s))
      .pipe(z.url({ protocol: /^https$/, message: 'the policy URL must be an https:// address' }).nullable())
      .nullable()
      .optional()
      .meta({ description: 'Where the full policy lives (https only); security.txt names it as Policy.', example: 'https://acme.example/security/cvd-policy' }),
    safeHarbour: optionalText(SAFE_HARBOUR_MAX_CHARS, 'the safe-harbour statement').meta({
      description: 'Safe-harbour statement for good-faith research, in Markdown.',
      example: 'We will not pursue legal action against good-faith research within this policy.',
    }),
    languages: z
      .array(Language)
      .min(1, 'give at least one language')
      .max(20, 'at most 20 languages')
      .optional()
      .meta({ description: 'Languages reports are read in (BCP 47 tags), preference first.', example: ['en', 'de'] }),
    securityEmail: z
      .string()
      .trim()
      .max(254, 'the e-mail address is too long')
      .transform((s) => (s === '' ? null : s))
      .pipe(z.email({ message: 'expected an e-mail address such as psirt@example.com' }).nullable())
      .nullable()
      .optional()
      .meta({ description: 'Security contact mailbox read by people (Art. 13(17)); security.txt names it as Contact.', example: 'psirt@acme.example' }),
    preferredReportFormat: optionalText(200, 'the preferred report format').meta({ example: 'Plain text; CVSS vector welcome' }),
    pgpPublicKey: z
      .string()
      .max(100_000, 'the key block is too long: at most 100,000 characters')
      .transform((s) => (s.trim() === '' ? null : s.trim()))
      .nullable()
      .optional()
      .meta({ description: 'ASCII-armoured OpenPGP public key; checked (not private, not expired or revoked, can encrypt) and re-armoured.' }),
    responseTimes: ResponseTimes.optional(),
    acknowledgmentsText: optionalText(ACKNOWLEDGMENTS_MAX_CHARS, 'the earlier acknowledgments').meta({
      description:
        'Researchers thanked outside Cradle (before it, or for work without an advisory), in Markdown; shown on the portal acknowledgments page under the credits of published advisories. Name people only with their consent.',
      example: '- Jane Doe (Example Research), 2024: authentication bypass in the T1 thermostat',
    }),
  })
  .strict()
  .meta({ id: 'PortalSettingsInput' });
export type PortalSettingsInput = z.infer<typeof PortalSettingsInput>;

export const PublicKeyFacts = z
  .object({
    fingerprint: z.string().meta({ example: 'C636 557A 2159 A5FC D8C5 C43B 251C 8AD5 4C9F 74F8' }),
    userIds: z.array(z.string()),
    algorithm: z.string(),
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'PublicKeyFacts' });

export const PortalSettings = z
  .object({
    policyText: z.string().nullable(),
    policyUrl: z.string().nullable(),
    safeHarbour: z.string().nullable(),
    languages: z.array(z.string()),
    securityEmail: z.string().nullable(),
    preferredReportFormat: z.string().nullable(),
    pgpPublicKey: z.string().nullable(),
    pgpKey: PublicKeyFacts.nullable().meta({ description: 'What the published key is: fingerprint, user ids, algorithm, dates.' }),
    responseTimes: z.object({
      acknowledgeDays: z.number().int().nullable(),
      assessDays: z.number().int().nullable(),
      resolveDays: z.number().int().nullable(),
    }),
    acknowledgmentsText: z.string().nullable(),
    portalUrl: z.string().meta({ description: 'The public portal these settings appear on.' }),
    securityTxtUrl: z.string(),
    pgpKeyUrl: z.string().nullable().meta({ description: 'Where the portal serves the key (security.txt Encryption); null without a key.' }),
    acknowledgmentsUrl: z.string().meta({ description: 'The portal page thanking researchers (security.txt Acknowledgments once it names anyone).' }),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'PortalSettings' });
export type PortalSettings = z.infer<typeof PortalSettings>;
