import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One-time set-up tokens printed by each starting instance while no company exists. Kept in the
 * database (digest only) so that behind a load balancer any instance accepts any printed token.
 */
export const setupTokens = pgTable('setup_tokens', {
  tokenDigest: text('token_digest').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
});
