import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { caseParticipants, caseReports } from '../../db/schema/index.js';
import type { Involvement } from './csaf.js';

/** A case participant's role as a CSAF party (section 3.2.3.4.1); the maintainer of a component is its vendor. */
const PARTY: Record<string, Involvement['party']> = {
  finder: 'discoverer',
  vendor: 'vendor',
  upstream_maintainer: 'vendor',
  other_vendor: 'vendor',
  coordinator: 'coordinator',
  deployer: 'user',
};

/** The words of an involvement's summary: the role, never the participant's name or address (no consent to publish them). */
const ROLE_SUMMARY: Record<string, string> = {
  finder: 'Finder of the vulnerability',
  vendor: 'Vendor of an affected product',
  upstream_maintainer: 'Maintainer of an affected third-party component, notified under CRA Article 13(6)',
  other_vendor: 'Another vendor of an affected product',
  coordinator: 'Coordinator of the disclosure',
  deployer: 'Deployer of an affected product',
};

const STATUSES = new Set<Involvement['status']>(['completed', 'contact_attempted', 'disputed', 'in_progress', 'not_contacted', 'open']);

/**
 * The CSAF involvements of a report's advisory (docs/advisories.md "Involvements"): every
 * participant of the coordination cases holding the report, its CSAF party and status (the
 * case's status is already in the CSAF vocabulary), dated at its latest step (fix, acknowledgement,
 * notification, else joining the case). Read in the release's transaction: a cross-module read of the cases tables
 * (docs/architecture.md "Cross-module table access").
 */
export async function caseInvolvements(db: Executor, companyId: string, reportId: string): Promise<Involvement[]> {
  const rows = await db
    .select({ role: caseParticipants.role, status: caseParticipants.status, p: caseParticipants })
    .from(caseParticipants)
    .innerJoin(caseReports, and(eq(caseReports.caseId, caseParticipants.caseId), eq(caseReports.companyId, companyId)))
    .where(and(eq(caseParticipants.companyId, companyId), eq(caseReports.reportId, reportId)))
    .orderBy(asc(caseParticipants.createdAt), asc(caseParticipants.id));
  return rows.map(({ role, status, p }) => {
    return {
      party: PARTY[role] ?? 'other',
      status: STATUSES.has(status as Involvement['status']) ? (status as Involvement['status']) : 'not_contacted',
      // Recommended test 6.2.7 wants a date on every involvement: one not yet contacted is dated when it joined the case.
      date: p.fixAvailableAt ?? p.acknowledgedAt ?? p.notifiedAt ?? p.createdAt,
      summary: ROLE_SUMMARY[role] ?? 'Participant in the coordinated disclosure',
    };
  });
}
