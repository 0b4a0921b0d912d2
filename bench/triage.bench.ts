// Triage worker figures: the time to run one triage job (read the report and the company's 500
// newest others, built-in triage with the similarity search, store the suggestion and its audit
// row), beside a same-run baseline: only the read of those 500 reports. On the embedded database,
// or on DATABASE_URL when set.
import { desc, eq } from 'drizzle-orm';
import { reports } from '../src/db/schema/index.js';
import { operatorContext } from '../src/kernel/context.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { updateCompany } from '../src/modules/companies/update-company.js';
import { fileReport } from '../src/modules/reports/file-report.js';
import { runTriageCycle } from '../src/modules/triage/triage-worker.js';
import { median, openBenchDatabase, report } from './lib.js';

const OTHERS = 500;
const JOBS = 40;
const WORDS =
  'firmware login cookie session overflow parser packet endpoint admin token password bypass camera thermostat hub update signature telnet debug crash reboot injection script header request response port api version'.split(
    ' ',
  );
const text = (i: number) => `Report ${i}: ${Array.from({ length: 90 }, (_, k) => WORDS[(i * 7 + k * 13 + (k % 5) * i) % WORDS.length]).join(' ')}.`;

const { database, dispose } = await openBenchDatabase(process.env.DATABASE_URL ? 'postgres' : 'pglite');
const db = database.db;
const slug = `bench-${Date.now().toString(36)}`;
const quiet = await createCompany(db, operatorContext(), { slug, name: 'Bench', plan: 'enterprise' });
for (let i = 0; i < OTHERS; i++) await fileReport(db, operatorContext(), quiet, { description: text(i) }, 'api');
const company = await updateCompany(db, operatorContext(), slug, { aiTriage: true });

const jobMs: number[] = [];
const readMs: number[] = [];
for (let i = 0; i < JOBS; i++) {
  await fileReport(db, operatorContext(), company, { description: text(OTHERS + i) }, 'api');
  let t0 = performance.now();
  await db
    .select({ id: reports.id, d: reports.description, s: reports.stepsToReproduce, m: reports.impact })
    .from(reports)
    .where(eq(reports.companyId, company.id))
    .orderBy(desc(reports.createdAt))
    .limit(OTHERS);
  readMs.push(performance.now() - t0);
  t0 = performance.now();
  const ran = await runTriageCycle(db, { batch: 1 });
  jobMs.push(performance.now() - t0);
  if (ran !== 1) throw new Error(`expected one job, ran ${ran}`);
}
report(
  `triage job against ${OTHERS} earlier reports (${database.kind}), median of ${JOBS}`,
  median(jobMs),
  'ms',
  `read of those ${OTHERS} reports alone`,
  median(readMs),
);
await dispose();
