import { z } from 'zod';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { attestations, products } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { notFound, validation } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { type AttestationView, RecordAttestationInput } from './compliance.schemas.js';

const columns = {
  id: attestations.id,
  requirementId: attestations.requirementId,
  productIdentifier: products.identifier,
  verdict: attestations.verdict,
  justification: attestations.justification,
  evidenceUrl: attestations.evidenceUrl,
  author: attestations.author,
  attestedAt: attestations.attestedAt,
  expiresAt: attestations.expiresAt,
  withdrawnAt: attestations.withdrawnAt,
};
type Row = { [K in keyof typeof columns]: (typeof columns)[K]['_']['data'] | null } & {
  id: string;
  requirementId: string;
  verdict: 'met' | 'not_applicable';
  justification: string;
  author: string;
  attestedAt: Date;
};

const toView = (r: Row): AttestationView => ({
  id: r.id,
  requirementId: r.requirementId,
  productIdentifier: r.productIdentifier,
  verdict: r.verdict,
  justification: r.justification,
  evidenceUrl: r.evidenceUrl,
  author: r.author,
  attestedAt: r.attestedAt.toISOString(),
  expiresAt: r.expiresAt?.toISOString() ?? null,
  withdrawnAt: r.withdrawnAt?.toISOString() ?? null,
});

async function select(db: Executor, companyId: string, where?: ReturnType<typeof and>): Promise<AttestationView[]> {
  const rows = await db
    .select(columns)
    .from(attestations)
    .leftJoin(products, eq(products.id, attestations.productId))
    .where(and(eq(attestations.companyId, companyId), where))
    .orderBy(desc(attestations.attestedAt), attestations.id);
  return (rows as Row[]).map(toView);
}

/**
 * Records a person's attestation of a requirement (met, or not applicable), always with a
 * justification; `author` is who it is shown as (the transport knows: an e-mail, a key's name).
 */
export async function recordAttestation(db: Db, ctx: Context, companyId: string, raw: unknown, author: string, now = new Date()): Promise<AttestationView> {
  const input = parseInput(RecordAttestationInput, raw);
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime())
    throw validation('expiresAt: must be in the future', [{ path: 'expiresAt', message: 'must be in the future' }]);
  return db.transaction(async (tx) => {
    const productId = input.product === undefined ? null : (await getProductByIdentifier(tx, companyId, input.product)).id;
    const id = newId();
    await tx.insert(attestations).values({
      id,
      companyId,
      productId,
      requirementId: input.requirementId,
      verdict: input.verdict,
      justification: input.justification,
      evidenceUrl: input.evidenceUrl ?? null,
      author,
      actor: actorName(ctx),
      attestedAt: now,
      expiresAt,
    });
    await recordAudit(tx, ctx, {
      companyId,
      action: 'compliance.attest',
      targetType: 'attestation',
      targetId: id,
      at: now,
      details: { requirementId: input.requirementId, product: input.product ?? null, verdict: input.verdict, expiresAt: expiresAt?.toISOString() ?? null },
    });
    const [view] = await select(tx, companyId, and(eq(attestations.id, id)));
    return view as AttestationView;
  });
}

/** The company's attestations, newest first; withdrawn ones only when asked for. */
export function listAttestations(db: Executor, companyId: string, opts: { includeWithdrawn?: boolean } = {}): Promise<AttestationView[]> {
  return select(db, companyId, opts.includeWithdrawn ? undefined : and(isNull(attestations.withdrawnAt)));
}

/** Withdraws an attestation (kept, marked withdrawn); another company's or an unknown id is NOT_FOUND. */
export async function withdrawAttestation(db: Db, ctx: Context, companyId: string, id: string, now = new Date()): Promise<void> {
  if (!z.uuid().safeParse(id).success) throw notFound('attestation');
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(attestations)
      .set({ withdrawnAt: now, withdrawnBy: actorName(ctx) })
      .where(and(eq(attestations.companyId, companyId), eq(attestations.id, id), isNull(attestations.withdrawnAt)))
      .returning({ requirementId: attestations.requirementId });
    if (!row) throw notFound('attestation');
    await recordAudit(tx, ctx, {
      companyId,
      action: 'compliance.withdraw_attestation',
      targetType: 'attestation',
      targetId: id,
      details: { requirementId: row.requirementId },
      at: now,
    });
  });
}
