import { type SQL, sql } from 'drizzle-orm';
import { newId } from '../../kernel/ids.js';

/** Queues AI triage of one report (one job per report), as a statement to run with the report's insert. */
export function triageInsertSql(companyId: string, reportId: string, at: Date): SQL {
  const ts = at.toISOString();
  return sql`insert into triage_jobs (id, company_id, report_id, state, created_at, updated_at)
values (${newId()}::uuid, ${companyId}::uuid, ${reportId}::uuid, 'pending', ${ts}::timestamptz, ${ts}::timestamptz)`;
}
