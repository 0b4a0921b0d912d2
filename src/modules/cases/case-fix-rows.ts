import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { caseFixes } from '../../db/schema/index.js';
import type { CaseFixView, SharedFixView } from './case-fixes.schemas.js';
import type { ParticipantRow } from './case-store.js';

type FixRow = typeof caseFixes.$inferSelect;

/** The roles a fix is shared with: the maintainers upstream (CRA Article 13(6)). */
export const FIX_ROLES: readonly string[] = ['upstream_maintainer'];
export const seesFixes = (p: Pick<ParticipantRow, 'role'>): boolean => FIX_ROLES.includes(p.role);

export const fixView = (f: FixRow): CaseFixView => ({
  id: f.id,
  kind: f.kind as CaseFixView['kind'],
  body: f.body,
  osvDraft: f.osvDraft ?? null,
  createdBy: f.createdBy,
  createdAt: f.createdAt.toISOString(),
});

/** The fixes of a case, oldest first (the caller has checked the case is the company's). */
export async function listCaseFixRows(db: Executor, companyId: string, caseId: string): Promise<CaseFixView[]> {
  const rows = await db
    .select()
    .from(caseFixes)
    .where(and(eq(caseFixes.companyId, companyId), eq(caseFixes.caseId, caseId)))
    .orderBy(asc(caseFixes.createdAt), asc(caseFixes.id));
  return rows.map(fixView);
}

/** What one participant sees: every fix when it is upstream, none otherwise (the caller runs as system). */
export async function fixesForParticipant(db: Executor, p: ParticipantRow): Promise<SharedFixView[]> {
  if (!seesFixes(p)) return [];
  return (await listCaseFixRows(db, p.companyId, p.caseId)).map(({ createdBy: _by, ...f }) => f);
}
