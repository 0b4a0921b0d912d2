import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';

/** A company's members (roles in modules/users/roles.ts). E-mail is unique across the instance: sign-in names no company. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ['admin', 'psirt', 'viewer'] }).notNull().default('admin'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [uniqueIndex('users_email_key').on(sql`lower(${t.email})`), index('users_company_idx').on(t.companyId)],
);

/** Dashboard sessions live in the database so any instance can serve them; only a digest is kept. */
export const sessions = pgTable(
  'sessions',
  {
    tokenDigest: text('token_digest').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    csrfToken: text('csrf_token').notNull(),
    createdAt: instant('created_at').notNull(),
    lastSeenAt: instant('last_seen_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

/**
 * Invitations to join a company (docs/access.md "Team"). The link's token is 32 random bytes; only
 * its SHA-256 digest is kept. A row is pending until accepted, revoked or past `expires_at`; at most
 * one pending row per company and address.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    email: text('email').notNull(),
    role: text('role', { enum: ['admin', 'psirt', 'viewer'] }).notNull(),
    tokenDigest: text('token_digest').notNull(),
    /** Who invited (null once that member is removed; the audit log keeps the id). */
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    acceptedAt: instant('accepted_at'),
    revokedAt: instant('revoked_at'),
  },
  (t) => [
    uniqueIndex('invitations_token_digest_key').on(t.tokenDigest),
    uniqueIndex('invitations_pending_email_key').on(t.companyId, sql`lower(${t.email})`).where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
  ],
);
