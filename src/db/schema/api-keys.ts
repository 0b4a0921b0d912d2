import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { companies } from './companies.js';

/** API keys: only the SHA-256 digest of the 64-hex value is stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyDigest: text('key_digest').notNull(),
    /** Last four characters of the value, to tell keys apart in lists. */
    keyHint: text('key_hint').notNull(),
    scopes: text('scopes').array().notNull(),
    allowedIps: text('allowed_ips').array().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    suspendedAt: timestamp('suspended_at', { withTimezone: true, precision: 3 }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 3 }),
    lastUsedIp: text('last_used_ip'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [uniqueIndex('api_keys_digest_key').on(t.keyDigest), index('api_keys_company_idx').on(t.companyId)],
);
