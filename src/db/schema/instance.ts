import { pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';

/**
 * One-time set-up tokens printed by each starting instance while no company exists. Kept in the
 * database (digest only) so that behind a load balancer any instance accepts any printed token.
 */
export const setupTokens = pgTable('setup_tokens', {
  tokenDigest: text('token_digest').primaryKey(),
  createdAt: instant('created_at').notNull(),
  expiresAt: instant('expires_at').notNull(),
});
