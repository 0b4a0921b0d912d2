import { z } from 'zod';
import { Scope, SCOPES } from '../../kernel/access.js';
import { normaliseAllowlistEntry } from './allowlist.js';

export { SCOPES, Scope } from '../../kernel/access.js';

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'Read vulnerabilities, products, compliance and SBOM metadata',
  'submissions:write': 'Submit vulnerability reports',
  'products:write': 'Create and update products',
  'sbom:write': 'Push SBOMs from CI/CD',
  'sarif:write': 'Push SARIF scan findings',
  'webhooks:write': 'Register webhooks',
  'gdpr:export': 'Export all company data',
  'triage:write': 'Change report status, severity and Article 14 facts',
  'portal:write': 'Change the portal and disclosure-policy settings (policy, contact, OpenPGP key)',
  'upstream:write': 'Set the GitHub token and the package URLs the company maintains (reaching upstream maintainers)',
  'retention:write': 'Read and change the retention policy, preview and run it, place and release legal holds, record erasure requests',
};

/** docs/access.md "API keys": key expiry default 365 days, maximum 3650. */
export const DEFAULT_EXPIRY_DAYS = 365;
export const MAX_EXPIRY_DAYS = 3650;
export const MAX_ALLOWLIST_ENTRIES = 100;

const AllowlistEntry = z
  .string()
  .max(64)
  .transform((s, ctx) => {
    const n = normaliseAllowlistEntry(s);
    if (n === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${s.slice(0, 64)}" is not an IP address or CIDR range` });
      return z.NEVER;
    }
    return n;
  });

/** Body of `POST /api/settings/api-keys` (docs/access.md "API keys"). */
export const CreateKeyInput = z
  .object({
    name: z.string().trim().min(1, 'name must not be empty').max(100),
    scopes: z
      .array(Scope)
      .max(SCOPES.length)
      .default([])
      .transform((s) => [...new Set(s)]),
    expiresInDays: z.number().int().min(1).max(MAX_EXPIRY_DAYS).default(DEFAULT_EXPIRY_DAYS),
    allowedIps: z
      .array(AllowlistEntry)
      .max(MAX_ALLOWLIST_ENTRIES)
      .default([])
      .transform((s) => [...new Set(s)]),
  })
  .strict();
export type CreateKeyInput = z.infer<typeof CreateKeyInput>;

export const KEY_STATUSES = ['active', 'expired', 'suspended'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A key as shown to its administrators: never the value or its digest. */
export type ApiKeyView = {
  id: string;
  name: string;
  keyHint: string;
  scopes: string[];
  allowedIps: string[];
  createdAt: string;
  expiresAt: string;
  rotatedAt: string | null;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
  status: KeyStatus;
};

type KeyRow = {
  id: string;
  name: string;
  keyHint: string;
  scopes: string[];
  allowedIps: string[];
  createdAt: Date;
  expiresAt: Date;
  rotatedAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  suspendedAt: Date | null;
};

export const keyStatus = (r: Pick<KeyRow, 'suspendedAt' | 'expiresAt'>, now: Date): KeyStatus =>
  r.suspendedAt ? 'suspended' : r.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';

export const toKeyView = (r: KeyRow, now: Date): ApiKeyView => ({
  id: r.id,
  name: r.name,
  keyHint: r.keyHint,
  scopes: r.scopes,
  allowedIps: r.allowedIps,
  createdAt: r.createdAt.toISOString(),
  expiresAt: r.expiresAt.toISOString(),
  rotatedAt: r.rotatedAt?.toISOString() ?? null,
  lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
  lastUsedIp: r.lastUsedIp,
  status: keyStatus(r, now),
});

/** The create and rotate answer: the only place the value ever appears. */
export type IssuedKey = { id: string; key: string; name: string; scopes: string[]; expiresAt: string; allowedIps: string[]; createdAt: string };

/** The answer to creating or rotating a key: the only place its value is ever shown (docs/access.md "API keys"). */
export const toIssuedKey = (
  row: { id: string; name: string; scopes: string[]; expiresAt: Date; allowedIps: string[]; createdAt: Date },
  value: string,
): IssuedKey => ({
  id: row.id,
  key: value,
  name: row.name,
  scopes: row.scopes,
  expiresAt: row.expiresAt.toISOString(),
  allowedIps: row.allowedIps,
  createdAt: row.createdAt.toISOString(),
});

/** docs/access.md "API keys": 64 lowercase hexadecimal characters. */
export const KEY_FORMAT = /^[0-9a-f]{64}$/;
