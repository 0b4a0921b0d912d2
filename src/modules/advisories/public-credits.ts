import { and, asc, desc, eq, like } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companyReadCache } from '../../db/company-read-cache.js';
import { advisories, advisoryDocuments } from '../../db/schema/index.js';
import { csafFileName } from './csaf-provider.js';

/** One advisory a researcher is credited on, as its released document states it. */
export type CreditedAdvisory = { trackingId: string; title: string; initialReleaseDate: string; pageName: string };
/** A researcher (or team) credited with consent, with every published advisory that names them. */
export type PublicCredit = { name: string; advisories: CreditedAdvisory[] };

type ReleasedCsaf = {
  document?: { title?: string; tracking?: { id?: string; initial_release_date?: string } };
  vulnerabilities?: { acknowledgments?: { names?: string[] }[] }[];
};

/**
 * The credits of the company's published advisories, read from the newest released CSAF document
 * of each (what the public has been shown, never a working copy: edits to a published advisory's
 * credits appear with its next revision). An acknowledgment exists only with the researcher's
 * recorded consent (advisories.schemas.ts). Withdrawn advisories are left out: a retracted
 * advisory is no finding to be thanked for here (its own page keeps its credit line). Drafts
 * have no released document.
 */
async function loadCredits(db: Db, companyId: string): Promise<PublicCredit[]> {
  const latest = db
    .selectDistinctOn([advisoryDocuments.advisoryId], { content: advisoryDocuments.content, trackingId: advisoryDocuments.trackingId })
    .from(advisoryDocuments)
    .innerJoin(advisories, and(eq(advisories.id, advisoryDocuments.advisoryId), eq(advisories.companyId, advisoryDocuments.companyId)))
    .where(and(eq(advisoryDocuments.companyId, companyId), eq(advisoryDocuments.kind, 'csaf'), eq(advisories.status, 'published')))
    .orderBy(asc(advisoryDocuments.advisoryId), desc(advisoryDocuments.version))
    .as('latest');
  // Only documents that mention acknowledgments at all are parsed (the key is absent otherwise).
  const rows = await db.select().from(latest).where(like(latest.content, '%"acknowledgments"%'));
  const byName = new Map<string, CreditedAdvisory[]>();
  for (const row of rows) {
    const doc = JSON.parse(row.content) as ReleasedCsaf;
    const names = new Set((doc.vulnerabilities ?? []).flatMap((v) => (v.acknowledgments ?? []).flatMap((a) => a.names ?? [])));
    const credited: CreditedAdvisory = {
      trackingId: doc.document?.tracking?.id ?? row.trackingId,
      title: doc.document?.title ?? '',
      initialReleaseDate: doc.document?.tracking?.initial_release_date ?? '',
      pageName: csafFileName(row.trackingId).replace(/\.json$/, ''),
    };
    for (const name of names) byName.set(name, [...(byName.get(name) ?? []), credited]);
  }
  return [...byName]
    .map(([name, list]) => ({
      name,
      advisories: list.sort((a, b) => b.initialReleaseDate.localeCompare(a.initialReleaseDate) || a.trackingId.localeCompare(b.trackingId)),
    }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.name.localeCompare(b.name));
}

// advisories and advisory_documents are both in the `compliance` version domain (src/db/version-domains.ts).
const cache = companyReadCache('public credits', 'compliance', loadCredits, { weigh: (list) => list.length + 1, maxWeight: 50_000 });

/** The company's public credits, researcher by researcher (name order); kept while its data version stands. */
export const publicCredits = (db: Db, companyId: string): Promise<PublicCredit[]> => cache.read(db, companyId);
