import { bigserial, index, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';

/**
 * Failed dashboard sign-ins, one row each, kept for the throttle window only. In the database (not
 * in memory) so that every instance behind a load balancer sees the same count. `account` is the
 * lower-cased e-mail as typed (it may name no user); `address` is the client address bucket.
 * Never the password.
 */
export const signInFailures = pgTable(
  'sign_in_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    account: text('account').notNull(),
    address: text('address').notNull(),
    at: instant('at').notNull(),
  },
  (t) => [index('sign_in_failures_account_idx').on(t.account, t.at), index('sign_in_failures_address_idx').on(t.address, t.at)],
);
