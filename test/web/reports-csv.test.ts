import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { csvField } from '../../src/modules/reports/reports-csv.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { updateReport } from '../../src/modules/reports/update-report.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { makeMember } from '../helpers/team.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let viewer: ReturnType<typeof dashboardClient>;

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  viewer = dashboardClient(t, await signInCookie(t, (await makeMember(t.database.db, acme.company.id, acme.admin.id, 'viewer')).email));
});
after(() => t.close());

/** RFC 4180 rows (quoted fields, doubled quotes, CRLF), read independently of the writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endField();
    else if (c === '\r' && text[i + 1] === '\n') {
      endField();
      rows.push(row);
      row = [];
      i++;
    } else field += c;
  }
  return rows;
}

describe('reports as CSV', () => {
  it("downloads every report's facts across export pages, newest first, never the reporter's text or another company's reports", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) {
      const { report } = await fileReport(
        t.database.db,
        operatorContext(),
        acme.company,
        { description: `secret description ${i}`, contactEmail: 'r@example.test' },
        'api',
      );
      ids.push(report.submissionId);
    }
    await updateReport(t.database.db, operatorContext(), acme.company.id, ids[0] as string, {
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cwe: 'CWE-287',
    });
    await fileReport(t.database.db, operatorContext(), rival.company, { description: 'theirs' }, 'api');
    const page = await viewer.page('/reports');
    assert.match(page.body, /<a href="\/reports\/export" download>Download every report as CSV<\/a>/);
    const res = await viewer.page('/reports/export');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="[a-z0-9-]+-reports-\d{4}-\d\d-\d\d\.csv"$/);
    const [header, ...rows] = parseCsv(res.body);
    assert.equal(header?.[0], 'submission_id');
    assert.deepEqual(new Set(rows.map((r) => r[0])), new Set(ids), 'all 105 across two export pages, only this company');
    const rated = rows.find((r) => r[0] === ids[0]) ?? [];
    const col = (name: string) => rated[header?.indexOf(name) ?? -1];
    assert.equal(col('severity'), 'critical');
    assert.equal(col('cvss_score'), '9.8');
    assert.equal(col('cwe'), 'CWE-287');
    assert.ok(!res.body.includes('secret description') && !res.body.includes('r@example.test'), "no reporter's text or contact");
  });

  it('quotes every field and defuses spreadsheet formulas from reporters', () => {
    assert.equal(csvField('=HYPERLINK("http://evil")'), '"\'=HYPERLINK(""http://evil"")"');
    assert.equal(csvField('-2+3'), '"\'-2+3"');
    assert.equal(csvField('@SUM(A1)'), '"\'@SUM(A1)"');
    assert.equal(csvField('Thermostat, "T2"'), '"Thermostat, ""T2"""');
    assert.equal(csvField(9.8), '"9.8"');
    assert.equal(csvField(null), '');
  });
});
