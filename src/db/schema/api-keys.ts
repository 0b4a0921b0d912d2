import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';

/** API keys: only the SHA-256 digest of the 64-hex value is stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    name: text('name').notNull(),
    keyDigest: text('key_digest').notNull(),
    /** Last four characters of the value, to tell keys apart in lists. */
    keyHint: text('key_hint').notNull(),
    scopes: text('scopes').array().notNull(),
    allowedIps: text('allowed_ips').array().notNull(),
    expiresAt: instant('expires_at').notNull(),
    suspendedAt: instant('suspended_at'),
    lastUsedAt: instant('last_used_at'),
    lastUsedIp: text('last_used_ip'),
    createdAt: instant('created_at').notNull(),
    rotatedAt: instant('rotated_at'),
    /** The expiry an `api_key.expiring` event was raised for (once per expiry; a later expiry is announced again). */
    expiryNoticeFor: instant('expiry_notice_for'),
  },
  (t) => [uniqueIndex('api_keys_digest_key').on(t.keyDigest), index('api_keys_company_idx').on(t.companyId)],
);
