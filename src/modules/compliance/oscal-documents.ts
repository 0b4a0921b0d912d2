import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { oscalCatalog } from './oscal-catalog.js';
import { oscalAssessmentResults } from './oscal-results.js';
import { readCompliance } from './read-compliance.js';

/** The catalog's publication date: OSCAL `last-modified` of the catalog, stable across requests. */
const CATALOG_PUBLISHED = new Date('2026-11-22T00:00:00Z');

/** The CRA requirement catalog as OSCAL (the same document for every company). */
export const craOscalCatalog = (): Record<string, unknown> => oscalCatalog(CATALOG_PUBLISHED);

/**
 * The company's product assessments as OSCAL assessment results (API and dashboard alike), filtered
 * as `readCompliance` reads `query`; they import the catalog from its published API address.
 */
export async function oscalAssessmentsOf(db: Db, config: Config, companyId: string, query: unknown): Promise<Record<string, unknown>> {
  const { snapshot, assessments } = await readCompliance(db, companyId, query);
  const catalog = new URL('/api/v1/compliance/mappings/oscal', config.publicUrl).href;
  return oscalAssessmentResults(snapshot.evidence.products, assessments, snapshot.takenAt, catalog);
}
