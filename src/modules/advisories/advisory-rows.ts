import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { advisories } from '../../db/schema/index.js';
import { notFound } from '../../kernel/errors.js';
import type { AdvisoryView } from './advisories.schemas.js';
import { csafPath } from './csaf-provider.js';

export type AdvisoryRow = typeof advisories.$inferSelect;

const Id = z.uuid();

/** The company's advisory; another company's id, or one that is not a UUID, is NOT_FOUND. */
export async function getAdvisoryRow(db: Executor, companyId: string, id: string, forUpdate = false): Promise<AdvisoryRow> {
  if (!Id.safeParse(id).success) throw notFound('advisory');
  const q = db
    .select()
    .from(advisories)
    .where(and(eq(advisories.companyId, companyId), eq(advisories.id, id)));
  const [row] = forUpdate ? await q.for('update') : await q;
  if (!row) throw notFound('advisory');
  return row;
}

/** A report's advisories, newest first (at most one is not withdrawn): id, tracking id and state. */
export async function advisoriesOfReport(db: Executor, companyId: string, reportId: string): Promise<Pick<AdvisoryRow, 'id' | 'trackingId' | 'status'>[]> {
  return db
    .select({ id: advisories.id, trackingId: advisories.trackingId, status: advisories.status })
    .from(advisories)
    .where(and(eq(advisories.companyId, companyId), eq(advisories.reportId, reportId)))
    .orderBy(desc(advisories.createdAt), desc(advisories.id));
}

export async function listAdvisoryRows(db: Executor, companyId: string, status?: AdvisoryRow['status']): Promise<AdvisoryRow[]> {
  const where = status ? and(eq(advisories.companyId, companyId), eq(advisories.status, status)) : eq(advisories.companyId, companyId);
  return db.select().from(advisories).where(where).orderBy(desc(advisories.createdAt), desc(advisories.id));
}

/** Where a released advisory's CSAF document lives below `{portal_url}/.well-known/csaf/`. */
export const releasedPath = (r: Pick<AdvisoryRow, 'trackingId' | 'initialReleaseAt'>): string | null =>
  r.initialReleaseAt ? csafPath({ trackingId: r.trackingId, initialReleaseDate: r.initialReleaseAt }) : null;

/** `wellKnown` is `{portal_url}/.well-known/csaf/{distribution folder}`. */
export function toAdvisoryView(r: AdvisoryRow, distributionUrl: string): AdvisoryView {
  const path = releasedPath(r);
  return {
    id: r.id,
    trackingId: r.trackingId,
    vulnerabilityId: r.reportId,
    status: r.status,
    title: r.title,
    summary: r.summary,
    description: r.description,
    cve: r.cve,
    ids: r.ids,
    cvssVector: r.cvssVector,
    cwe: r.cwe,
    cweName: r.cweName,
    products: r.products,
    remediation: r.remediation ?? null,
    acknowledgments: r.acknowledgments,
    tlp: r.tlp,
    version: r.revisions.at(-1)?.number ?? null,
    revisions: r.revisions,
    pendingChanges: r.status === 'published' && r.currentReleaseAt !== null && r.updatedAt.getTime() > r.currentReleaseAt.getTime(),
    publicUrl: path ? `${distributionUrl}/${path}` : null,
    initialReleaseAt: r.initialReleaseAt?.toISOString() ?? null,
    currentReleaseAt: r.currentReleaseAt?.toISOString() ?? null,
    withdrawnAt: r.withdrawnAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}
