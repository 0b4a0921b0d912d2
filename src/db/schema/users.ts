import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { ROLES } from '../../kernel/access.js';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';

/** A company's members (roles in kernel/access.ts, what each may do in modules/users/roles.ts). E-mail is unique across the instance: sign-in names no company. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ROLES }).notNull().default('admin'),
    createdAt: instant('created_at').notNull(),
    /**
     * TOTP second factor (modules/users/second-factor.ts). The seed is sealed (kernel/secret-box.ts,
     * bound to the user id); `totp_pending_secret` holds a seed shown for enrolment until a code
     * confirms it. `totp_last_step` is the last accepted 30-second step: a code is never accepted
     * twice (RFC 6238 section 5.2).
     */
    totpSecret: text('totp_secret'),
    totpPendingSecret: text('totp_pending_secret'),
    totpEnabledAt: instant('totp_enabled_at'),
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  },
  (t) => [uniqueIndex('users_email_key').on(sql`lower(${t.email})`), index('users_company_idx').on(t.companyId)],
);

/**
 * Dashboard sessions live in the database so any instance can serve them; only a digest is kept.
 * `id` names a session on the account page (never the digest); `address` is the client's address
 * bucket at sign-in (IPv6 per /64) and `user_agent` its first 200 characters.
 */
export const sessions = pgTable(
  'sessions',
  {
    tokenDigest: text('token_digest').primaryKey(),
    id: uuid('id').notNull().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    csrfToken: text('csrf_token').notNull(),
    createdAt: instant('created_at').notNull(),
    lastSeenAt: instant('last_seen_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    address: text('address'),
    userAgent: text('user_agent'),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt), uniqueIndex('sessions_id_key').on(t.id)],
);

/** One-time recovery codes of a user's second factor: SHA-256 digests only (80 random bits each). */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    codeDigest: text('code_digest').notNull(),
    createdAt: instant('created_at').notNull(),
    usedAt: instant('used_at'),
  },
  (t) => [uniqueIndex('recovery_codes_user_digest_key').on(t.userId, t.codeDigest)],
);

/**
 * A sign-in whose password was right and whose second factor is still due: the token (in the
 * second step's form) is kept as a digest, lives 5 minutes and allows a few wrong codes.
 */
export const pendingSignIns = pgTable(
  'pending_sign_ins',
  {
    tokenDigest: text('token_digest').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    wrongCodes: integer('wrong_codes').notNull().default(0),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [index('pending_sign_ins_expires_idx').on(t.expiresAt)],
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
    role: text('role', { enum: ROLES }).notNull(),
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
    uniqueIndex('invitations_pending_email_key')
      .on(t.companyId, sql`lower(${t.email})`)
      .where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
  ],
);
