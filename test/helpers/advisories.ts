import type { Db } from '../../src/db/client.js';
import { operatorContext } from '../../src/kernel/context.js';
import type { AdvisoryView } from '../../src/modules/advisories/advisories.schemas.js';
import { createAdvisory } from '../../src/modules/advisories/create-advisory.js';
import { publishAdvisory } from '../../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../../src/modules/advisories/update-advisory.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { updateReport } from '../../src/modules/reports/update-report.js';
import { csafUrls } from '../../src/modules/advisories/csaf-provider.js';

/** A report filed and moved through the lifecycle to `fixed` (new -> accepted -> fixed). */
export async function fixedReport(db: Db, c: Company, fields: Record<string, unknown> = {}): Promise<string> {
  const { report } = await fileReport(db, operatorContext(), c, { description: 'Login accepts any password', ...fields }, 'api');
  await updateReport(db, operatorContext(), c.id, report.submissionId, { status: 'accepted' });
  await updateReport(db, operatorContext(), c.id, report.submissionId, { status: 'fixed' });
  return report.submissionId;
}

const portal = (c: Company) => `http://${c.slug}.localhost:3000`;
export const testTarget = (c: Company) => ({ company: c, namespace: portal(c), distributionUrl: csafUrls(portal(c)).distribution });

/** A draft ready to publish: one fixed and one affected version, with a remediation. */
export async function readyDraft(db: Db, c: Company, reportId?: string): Promise<AdvisoryView> {
  const t = testTarget(c);
  const draft = await createAdvisory(db, operatorContext(), c, t.distributionUrl, { vulnerabilityId: reportId ?? (await fixedReport(db, c)) });
  return updateAdvisory(db, operatorContext(), c, t.distributionUrl, draft.id, {
    products: [
      { name: 'Thermostat T2', vendor: c.name, version: '2.3.0', status: 'known_affected' },
      { name: 'Thermostat T2', vendor: c.name, version: '2.4.1', status: 'fixed' },
    ],
    remediation: { category: 'vendor_fix', details: 'Update to 2.4.1.' },
  });
}

export async function publishedAdvisory(db: Db, c: Company, reportId?: string): Promise<AdvisoryView> {
  return publishAdvisory(db, operatorContext(), testTarget(c), (await readyDraft(db, c, reportId)).id);
}

/** A draft crediting `names` (with consent), published unless `publish` is false. */
export async function creditedAdvisory(db: Db, c: Company, names: string[], o: { publish?: boolean; title?: string } = {}): Promise<AdvisoryView> {
  const t = testTarget(c);
  const draft = await readyDraft(db, c);
  await updateAdvisory(db, operatorContext(), c, t.distributionUrl, draft.id, {
    ...(o.title ? { title: o.title } : {}),
    acknowledgments: names.map((name) => ({ name, consent: true })),
  });
  return o.publish === false ? draft : publishAdvisory(db, operatorContext(), t, draft.id);
}
