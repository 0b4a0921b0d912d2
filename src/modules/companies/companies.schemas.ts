import { z } from 'zod';

import { Plan } from '../../kernel/access.js';

export { Plan, PLAN_ORDER, planAtLeast } from '../../kernel/access.js';

/**
 * Names a company may not take as its portal subdomain: they are, or commonly become, the
 * service's own hosts, and a portal there could phish researchers or intercept mail set-ups.
 */
export const RESERVED_SLUGS = new Set([
  'www',
  'api',
  'admin',
  'mail',
  'app',
  'assets',
  'static',
  'cdn',
  'dashboard',
  'docs',
  'status',
  'smtp',
  'imap',
  'pop',
  'pop3',
  'ftp',
  'ns',
  'ns1',
  'ns2',
  'mx',
  'webmail',
  'autodiscover',
  'autoconfig',
  'localhost',
  'mcp',
  'auth',
  'login',
  'portal',
  'support',
  'help',
  'cradle',
  'setup',
]);

export const Slug = z
  .string()
  .min(1, 'slug must not be empty')
  .max(63, 'slug must be at most 63 characters')
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'slug must be a DNS label: lowercase letters a-z, digits and inner hyphens')
  .refine((s) => !RESERVED_SLUGS.has(s), { message: 'slug is reserved' })
  .meta({ description: 'Portal subdomain: a DNS label (a-z, 0-9, inner -), 1-63 characters.', example: 'acme' });

const Language = z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'expected a language tag such as en or de-AT');

export const PortalSettings = z.object({
  securityEmail: z.email().max(254).nullable().optional(),
  policyText: z.string().max(20_000).nullable().optional(),
  policyUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .optional(),
  languages: z.array(Language).min(1).max(20).optional(),
  preferredReportFormat: z.string().max(200).nullable().optional(),
  pgpPublicKey: z
    .string()
    .max(100_000)
    .refine((s) => /-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]+-----END PGP PUBLIC KEY BLOCK-----/.test(s), {
      message: 'expected an ASCII-armoured OpenPGP public key block',
    })
    .nullable()
    .optional(),
});
export type PortalSettings = z.infer<typeof PortalSettings>;

export const CreateCompanyInput = z
  .object({
    slug: Slug,
    name: z.string().trim().min(1, 'name must not be empty').max(255),
    plan: Plan,
    aiTriage: z.boolean().optional(),
  })
  .extend(PortalSettings.shape);
export type CreateCompanyInput = z.infer<typeof CreateCompanyInput>;

export const UpdateCompanyInput = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    plan: Plan.optional(),
    aiTriage: z.boolean().optional(),
  })
  .extend(PortalSettings.shape);
export type UpdateCompanyInput = z.infer<typeof UpdateCompanyInput>;

export type Company = {
  id: string;
  slug: string;
  name: string;
  plan: Plan;
  aiTriage: boolean;
  securityEmail: string | null;
  policyText: string | null;
  policyUrl: string | null;
  languages: string[];
  preferredReportFormat: string | null;
  pgpPublicKey: string | null;
  safeHarbour: string | null;
  acknowledgmentsText: string | null;
  responseAcknowledgeDays: number | null;
  responseAssessDays: number | null;
  responseResolveDays: number | null;
  firstReportAt: Date | null;
  /** Every member must sign in with a second factor (docs/access.md "Second factor"). */
  requireSecondFactor: boolean;
  /** Offboarding: set while a deletion is pending; the company answers as suspended (docs/backup.md). */
  deletionRequestedAt: Date | null;
  deletionDueAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};
