// Advisory release figures (issue 12): the time to publish one advisory (render the CSAF advisory
// and its VEX twin, validate both against the official schema, store the bytes and hashes, audit,
// queue the webhook event) beside a same-run baseline: an edit of the same advisory (one locked
// row update with its audit row, no rendering). Also the first publish of the process, which
// compiles the CSAF schema, and serving index.txt of a portal with many released documents.
// PGlite in memory; PostgreSQL when DATABASE_URL is set.
import { operatorContext } from '../src/kernel/context.js';
import type { AdvisoryView } from '../src/modules/advisories/advisories.schemas.js';
import { publishAdvisory } from '../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../src/modules/advisories/update-advisory.js';
import { readyDraft, testTarget } from '../test/helpers/advisories.js';
import { createTestApp } from '../test/helpers/app.js';
import { makeCompany } from '../test/helpers/factories.js';
import { median, report } from './lib.js';

const N = 40;
const t = await createTestApp();
const db = t.database.db;
const company = await makeCompany(db, { slug: 'bench-acme' });
const target = testTarget(company);
const drafts: AdvisoryView[] = [];
for (let i = 0; i < N + 1; i++) drafts.push(await readyDraft(db, company));

const timed = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

const first = await timed(() => publishAdvisory(db, operatorContext(), target, drafts[0]?.id ?? ''));
const publish: number[] = [];
const edit: number[] = [];
for (const d of drafts.slice(1)) {
  edit.push(await timed(() => updateAdvisory(db, operatorContext(), company, target.distributionUrl, d.id, { summary: `Edited ${d.trackingId}` })));
  publish.push(await timed(() => publishAdvisory(db, operatorContext(), target, d.id)));
}
report(`publish one advisory (median of ${N})`, median(publish), 'ms', 'edit of the same advisory', median(edit));
report('first publish of the process (compiles the CSAF schema)', first, 'ms', 'later publish, median', median(publish));

const host = 'bench-acme.localhost:3000';
const index: number[] = [];
const txt: number[] = [];
for (let i = 0; i < 20; i++) {
  index.push(await timed(() => t.app.inject({ url: '/.well-known/csaf/clear/index.txt', headers: { host } })));
  txt.push(await timed(() => t.app.inject({ url: '/.well-known/security.txt', headers: { host } })));
}
report(`index.txt with ${2 * (N + 1)} documents (median of 20)`, median(index), 'ms', 'security.txt of the same portal', median(txt));
await t.close();
