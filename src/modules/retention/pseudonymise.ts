import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { randomHex, sha256Hex } from '../../kernel/ids.js';
import { literalPattern } from './researcher-identity.js';

/** `in (…)` over a list of report ids, as one JSON parameter whatever the list's length. */
export const idList = (ids: readonly string[]): SQL => sql`(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`;

export type Pseudonymisation = {
  companyId: string;
  reportIds: string[];
  pseudonym: string;
  /** The researcher's names and addresses as they may appear in free text (identityNeedles). */
  needles: string[];
  /** The retention rule also ends the status link; an erasure keeps it (docs/retention.md "Erasure"). */
  endStatusLink: boolean;
  at: Date;
};

const replaceIn = (column: SQL, needles: string[], pseudonym: string): SQL =>
  needles.length === 0 ? column : sql`regexp_replace(${column}, ${needles.map((n) => literalPattern(n)).join('|')}, ${pseudonym}, 'gi')`;
const replaceInJson = (column: SQL, needles: string[], pseudonym: string): SQL =>
  needles.length === 0 ? column : sql`regexp_replace(${column}::text, ${needles.map((n) => literalPattern(n, true)).join('|')}, ${pseudonym}, 'gi')::jsonb`;
const mentions = (column: SQL, needles: string[], json = false): SQL =>
  needles.length === 0 ? sql`false` : sql`${json ? sql`${column}::text` : column} ~* ${needles.map((n) => literalPattern(n, json)).join('|')}`;

/**
 * Replaces one researcher's personal data on the given reports with their pseudonym, everywhere
 * Cradle stored it (docs/retention.md "What is erased"): the report's contact, OpenPGP key, mail
 * opt-in and confirmation; any mention of their names or addresses in the report's text, its
 * thread, the team's notes, history, triage suggestion, advisory working copies and webhook events; the client
 * address and browser string of their own audit rows; and their queued or sent mail (pending mail
 * is suppressed). Advisory credits are dropped from the working copy, so the next revision carries
 * none; released documents stay as released. One statement per table, in the caller's transaction.
 */
export async function pseudonymiseReports(tx: Executor, p: Pseudonymisation): Promise<void> {
  const { companyId, pseudonym, needles, at } = p;
  const ids = idList(p.reportIds);
  const r = (c: string) => replaceIn(sql`${sql.identifier(c)}`, needles, pseudonym);
  await tx.execute(sql`
    update reports set contact_email = null, pgp_key = null, researcher_updates = false, researcher_mail_token = null,
      researcher_confirmed_at = null, researcher_pseudonym = ${pseudonym}, pseudonymised_at = ${at},
      description = ${r('description')}, steps_to_reproduce = ${r('steps_to_reproduce')}, impact = ${r('impact')},
      exploitation_evidence = ${r('exploitation_evidence')}, product_name = ${r('product_name')}
      ${p.endStatusLink ? sql`, status_token_digest = ${sha256Hex(randomHex(32))} || '-' || id::text` : sql``}
    where company_id = ${companyId} and id in ${ids}`);
  if (needles.length > 0) {
    await tx.execute(sql`update report_messages set body = ${r('body')}
      where company_id = ${companyId} and report_id in ${ids} and ${mentions(sql`body`, needles)}`);
    // The team's own notes may quote the researcher too: the same replacement, the author and time kept.
    await tx.execute(sql`update report_notes set body = ${r('body')}
      where company_id = ${companyId} and report_id in ${ids} and ${mentions(sql`body`, needles)}`);
    await tx.execute(sql`update report_events set changes = ${replaceInJson(sql`changes`, needles, pseudonym)}
      where company_id = ${companyId} and report_id in ${ids} and ${mentions(sql`changes`, needles, true)}`);
    await tx.execute(sql`update triage_suggestions set suggestion = ${replaceInJson(sql`suggestion`, needles, pseudonym)}
      where company_id = ${companyId} and report_id in ${ids} and ${mentions(sql`suggestion`, needles, true)}`);
    await tx.execute(sql`update outbox_events set payload = ${replaceInJson(sql`payload`, needles, pseudonym)}
      where company_id = ${companyId} and ${mentions(sql`payload`, needles, true)}`);
    await tx.execute(sql`update audit_log set details = ${replaceInJson(sql`details`, needles, pseudonym)}
      where company_id = ${companyId} and ${mentions(sql`details`, needles, true)}`);
  }
  await tx.execute(sql`
    update advisories set acknowledgments = '[]'::jsonb, title = ${r('title')}, summary = ${r('summary')}, description = ${r('description')}
    where company_id = ${companyId} and report_id in ${ids}`);
  // The researcher's own requests (filing, messages, mail links) are the public actor's rows about these reports.
  // Also the rows about them that target something else (the company's first-report milestone names the submission in its details).
  await tx.execute(sql`update audit_log set ip = null, user_agent = null
    where company_id = ${companyId} and actor_type = 'public' and (ip is not null or user_agent is not null)
      and (target_id in (select id::text from ${ids} as t(id)) or details->>'submissionId' in (select id::text from ${ids} as t(id))
        or details->>'reportId' in (select id::text from ${ids} as t(id)))`);
  await tx.execute(sql`
    update mail_messages set recipient = ${pseudonym}, data = null, dedupe_key = ${replaceIn(sql`dedupe_key`, needles, pseudonym)},
      state = case when state = 'pending' then 'suppressed' else state end,
      finished_at = coalesce(finished_at, ${at}), last_error = null
    where company_id = ${companyId} and (report_id in ${ids} or (user_id is null and ${mentions(sql`recipient`, needles)}))`);
}
