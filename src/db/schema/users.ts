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
