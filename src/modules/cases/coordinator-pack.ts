import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { getCompanyById } from '../companies/get-company.js';
import { caseReportRows } from './case-notices.js';
import { embargoView, getCaseRow } from './case-store.js';
import { Embargo, Participant } from './cases.schemas.js';
import { getCase } from './get-case.js';

const Instant = z.iso.datetime();

/**
 * What a CSIRT asked to coordinate needs to take a case over (docs/coordination.md "Reminders and
 * escalation"): who was told, when and how, who answered, the embargo and the case log. No
 * secret travels in it: no link digest, OpenPGP key, notice or message text, report text or
 * researcher's contact; the reports appear by their classification only.
 */
export const CoordinatorPack = z
  .object({
    format: z.literal('cradle-coordinator-pack/1'),
    generatedAt: Instant,
    vendor: z.object({ name: z.string(), securityEmail: z.string().nullable() }),
    case: z.object({
      id: z.uuid(),
      title: z.string(),
      summary: z.string().nullable(),
      state: z.enum(['open', 'closed']),
      openedAt: Instant,
      coordinatorSuggestedAt: Instant.nullable(),
    }),
    embargo: Embargo,
    reports: z.array(
      z.object({
        submissionId: z.uuid(),
        receivedAt: Instant,
        status: z.string(),
        vulnerabilityType: z.string().nullable(),
        cwe: z.string().nullable(),
        severity: z.string().nullable(),
        cvssVector: z.string().nullable(),
        componentPurl: z.string().nullable(),
        fixAvailableAt: Instant.nullable(),
      }),
    ),
    participants: z.array(Participant.omit({ encrypted: true })),
    log: z.array(z.object({ at: Instant, kind: z.string(), participant: z.string().nullable(), details: z.record(z.string(), z.unknown()) })),
  })
  .meta({ id: 'CoordinatorPack' });
export type CoordinatorPack = z.infer<typeof CoordinatorPack>;

/** The case's coordinator pack; NOT_FOUND for another company's case. */
export async function coordinatorPack(db: Db, companyId: string, caseId: string, now = new Date()): Promise<CoordinatorPack> {
  const c = await getCaseRow(db, companyId, caseId);
  const [view, reports, company] = await Promise.all([getCase(db, companyId, caseId), caseReportRows(db, companyId, caseId), getCompanyById(db, companyId)]);
  const names = new Map(view.participants.map((p) => [p.id, `${p.name} (${p.role})`]));
  return {
    format: 'cradle-coordinator-pack/1',
    generatedAt: now.toISOString(),
    vendor: { name: company.name, securityEmail: company.securityEmail },
    case: {
      id: c.id,
      title: c.title,
      summary: c.summary,
      state: view.state,
      openedAt: view.createdAt,
      coordinatorSuggestedAt: view.coordinatorSuggestedAt,
    },
    embargo: embargoView(c),
    reports: reports.map((r) => ({
      submissionId: r.id,
      receivedAt: r.createdAt.toISOString(),
      status: r.status,
      vulnerabilityType: r.vulnerabilityType,
      cwe: r.cwe,
      severity: r.severity,
      cvssVector: r.cvssVector,
      componentPurl: r.componentPurl,
      fixAvailableAt: r.fixAvailableAt?.toISOString() ?? null,
    })),
    participants: view.participants.map(({ encrypted: _encrypted, ...p }) => p),
    log: view.log.map((e) => ({
      at: e.createdAt,
      kind: e.kind,
      participant: e.participantId ? (names.get(e.participantId) ?? null) : null,
      details: e.details,
    })),
  };
}
