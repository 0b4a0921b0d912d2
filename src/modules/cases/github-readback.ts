import { and, eq, isNotNull, notInArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { caseParticipants } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import { SecretBoxError } from '../../kernel/secret-box.js';
import { GithubApiError, readAdvisoryState } from '../upstream/github-pvr.js';
import { openGithubToken } from '../upstream/upstream-settings.js';
import { logCaseEvent } from './case-store.js';
import type { GithubJobOptions } from './github-deliver.js';

/**
 * One pass of `cases.github-read-back`: reads the state of every GitHub advisory a participant's
 * notice became and that has not reached an end (completed or disputed), with the participant's
 * company's own token, outside any transaction, and moves the participant's status
 * (`involvementOf`: triage, draft, published, closed or withdrawn), logging each change in the case log.
 */
export async function readBackGithubAdvisories(db: Db, o: GithubJobOptions): Promise<number> {
  const open = await asSystem(() =>
    db
      .select()
      .from(caseParticipants)
      .where(
        and(eq(caseParticipants.channel, 'github'), isNotNull(caseParticipants.advisoryId), notInArray(caseParticipants.status, ['completed', 'disputed'])),
      ),
  );
  let moved = 0;
  for (const p of open) {
    const [owner, repo] = (p.address ?? '').split('/');
    if (!owner || !repo || !p.advisoryId) continue;
    let state;
    try {
      const token = await asSystem(() => openGithubToken(db, p.companyId));
      state = await readAdvisoryState({ apiUrl: o.apiUrl, token, owner, repo, allowPrivate: o.allowPrivate, ghsaId: p.advisoryId });
    } catch (e) {
      if (!(e instanceof GithubApiError) && !(e instanceof SecretBoxError)) throw e;
      o.log?.warn({ participantId: p.id, companyId: p.companyId, status: e instanceof GithubApiError ? e.status : null }, 'GitHub advisory not read back');
      continue;
    }
    if (state.involvement === p.status) continue;
    const now = o.now?.() ?? new Date();
    const changed = await asSystem(() =>
      db.transaction(async (tx) => {
        const [row] = await tx
          .update(caseParticipants)
          .set({ status: state.involvement, updatedAt: now, ...(state.htmlUrl ? { advisoryUrl: state.htmlUrl } : {}) })
          .where(and(eq(caseParticipants.companyId, p.companyId), eq(caseParticipants.id, p.id), eq(caseParticipants.status, p.status)))
          .returning({ id: caseParticipants.id });
        if (!row) return false;
        await logCaseEvent(tx, {
          companyId: p.companyId,
          caseId: p.caseId,
          participantId: p.id,
          actor: 'system',
          kind: 'status_changed',
          details: { from: p.status, to: state.involvement, ghsaId: state.ghsaId, advisoryState: state.state },
          at: now,
        });
        return true;
      }),
    );
    if (changed) moved++;
  }
  return moved;
}
