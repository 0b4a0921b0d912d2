import type { Executor } from '../../db/client.js';
import { isSafeMailbox } from '../mail/mail-header.js';
import { queueMail } from '../mail/mail-queue.js';

/** The changes of a member's own sign-in that mail them a security notice (issue 32, finding 2). */
export type AccountChange = 'second_factor_enabled' | 'second_factor_disabled' | 'recovery_codes_regenerated';

/** The person a notice goes to, and whether mail is on (without SMTP nothing is queued). */
export type NoticeTo = { companyId: string; email: string; mail: boolean };

/**
 * Queues the notice in the caller's transaction, so it exists exactly when the change committed.
 * It names the change, the time and the account; never a seed, a code or an address of the session.
 */
export async function queueAccountNotice(tx: Executor, to: NoticeTo, change: AccountChange, now: Date): Promise<void> {
  if (!to.mail || !isSafeMailbox(to.email)) return;
  const at = `${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  await queueMail(tx, { companyId: to.companyId, kind: 'account.security_notice', recipient: to.email, data: { change, at, email: to.email }, now });
}
