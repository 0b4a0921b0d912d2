import type { Db } from '../../db/client.js';
import { caseParticipants } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import { actorName, type Context } from '../../kernel/context.js';
import { validation } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { findCompanyBySlug } from '../companies/get-company.js';
import { checkPublicKey } from '../companies/openpgp-public-key.js';
import { isSafeMailbox } from '../mail/mail-header.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { getCaseRow, logCaseEvent, toParticipantView, touchCase } from './case-store.js';
import { AddParticipantInput, type Channel, type ParticipantView } from './cases.schemas.js';

type Target = { channel: Channel; address: string | null; name: string; peerCompanyId: string | null; pgpKey: string | null };

/** `owner/repo` of a github.com repository URL, else undefined. */
export function githubRepository(url: URL): string | undefined {
  if (url.hostname.toLowerCase() !== 'github.com') return undefined;
  const [owner, repo] = url.pathname.split('/').filter(Boolean);
  if (!owner || !repo || !/^[A-Za-z0-9-]{1,39}$/.test(owner) || !/^[A-Za-z0-9._-]{1,100}$/.test(repo)) return undefined;
  return `${owner}/${repo.replace(/\.git$/, '')}`;
}

async function resolveTarget(db: Db, companyId: string, input: AddParticipantInput): Promise<Target> {
  const given = [input.companySlug, input.email, input.repositoryUrl].filter((v) => v !== undefined);
  if (given.length !== 1)
    throw validation('name the participant by exactly one of companySlug, email or repositoryUrl', [
      { path: 'companySlug', message: 'give exactly one address' },
    ]);
  if (input.pgpKey !== undefined && input.email === undefined)
    throw validation('an OpenPGP key is used for e-mail only', [{ path: 'pgpKey', message: 'give an e-mail address with the key' }]);
  if (input.companySlug !== undefined) {
    // Another company's row is outside this request's scope: the lookup by slug is a door of its own (ADR 0009).
    const peer = await asSystem(() => findCompanyBySlug(db, input.companySlug?.toLowerCase() ?? ''));
    if (!peer) throw validation(`no company "${input.companySlug}" on this instance`, [{ path: 'companySlug', message: 'no such company on this instance' }]);
    if (peer.id === companyId)
      throw validation('your own company is the vendor of the case, not a participant to notify', [
        { path: 'companySlug', message: 'this is your own company' },
      ]);
    return { channel: 'cradle', address: peer.slug, name: input.name ?? peer.name, peerCompanyId: peer.id, pgpKey: null };
  }
  if (input.email !== undefined) {
    if (!isSafeMailbox(input.email)) throw validation('email is not a valid e-mail address', [{ path: 'email', message: 'not a valid e-mail address' }]);
    let pgpKey: string | null = null;
    if (input.pgpKey !== undefined && input.pgpKey.trim() !== '') {
      const checked = await checkPublicKey(input.pgpKey);
      if (!checked.ok) throw validation(`pgpKey: ${checked.message}`, [{ path: 'pgpKey', message: checked.message }]);
      pgpKey = checked.armored;
    }
    return { channel: 'email', address: input.email, name: input.name ?? input.email, peerCompanyId: null, pgpKey };
  }
  let url: URL;
  try {
    url = new URL(input.repositoryUrl ?? '');
  } catch {
    throw validation('repositoryUrl is not a URL', [{ path: 'repositoryUrl', message: 'not a URL' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw validation('repositoryUrl must be an http(s) URL', [{ path: 'repositoryUrl', message: 'must be http(s)' }]);
  const repo = githubRepository(url);
  if (repo) return { channel: 'github', address: repo, name: input.name ?? repo, peerCompanyId: null, pgpKey: null };
  const href = url.href.replace(/\/$/, '');
  return { channel: 'none', address: href, name: input.name ?? href, peerCompanyId: null, pgpKey: null };
}

/** Adds a participant by hand: another company's slug, a repository URL, or an e-mail address (with an optional OpenPGP key). */
export async function addParticipant(db: Db, ctx: Context, companyId: string, caseId: string, raw: unknown): Promise<ParticipantView> {
  const input = parseInput(AddParticipantInput, raw);
  await getCaseRow(db, companyId, caseId);
  const t = await resolveTarget(db, companyId, input);
  const now = new Date();
  const id = newId();
  const row = await db.transaction(async (tx) => {
    await getCaseRow(tx, companyId, caseId, true);
    const [p] = await tx
      .insert(caseParticipants)
      .values({
        id,
        companyId,
        caseId,
        role: input.role,
        name: t.name,
        channel: t.channel,
        address: t.address,
        pgpKey: t.pgpKey,
        status: 'not_contacted',
        embargoResponse: 'pending',
        peerCompanyId: t.peerCompanyId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await touchCase(tx, companyId, caseId, now);
    await logCaseEvent(tx, {
      companyId,
      caseId,
      participantId: id,
      actor: actorName(ctx),
      kind: 'participant_added',
      details: { role: input.role, channel: t.channel },
      at: now,
    });
    await recordAudit(tx, ctx, {
      companyId,
      action: 'cases.participant_add',
      targetType: 'case',
      targetId: caseId,
      details: { participantId: id, role: input.role, channel: t.channel },
      at: now,
    });
    await enqueueEvent(tx, companyId, 'case.participant_added', { caseId, participantId: id, role: input.role, channel: t.channel }, now);
    return p;
  });
  if (!row) throw new Error('participant insert returned nothing');
  return toParticipantView(row);
}
