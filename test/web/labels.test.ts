import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { UpsertProductInput } from '../../src/modules/products/products.schemas.js';
import { toFieldIssues } from '../../src/kernel/validate.js';
import { issueSentence } from '../../src/web/issue-sentences.js';
import { label, LABELS, type LabelKind } from '../../src/web/labels.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';

describe('labels', () => {
  it('gives every value of every enumeration shown to people a label of words, never the value itself', () => {
    for (const kind of Object.keys(LABELS) as LabelKind[]) {
      const { values, labels } = LABELS[kind];
      assert.ok(values.length > 0, kind);
      for (const v of values) {
        assert.ok(Object.hasOwn(labels, v), `${kind}.${v} has a label`);
        const l = label(kind, v);
        assert.ok(l.trim().length > 0, `${kind}.${v}`);
        assert.doesNotMatch(l, /_/, `${kind}.${v} reads as words: ${l}`);
        if (v.includes('_')) assert.notEqual(l, v, `${kind}.${v}`);
      }
    }
    assert.equal(label('vulnerabilityType', 'insecure_update'), 'Insecure update mechanism');
    assert.equal(label('reportState', 'some_future_state'), 'some future state', 'an unknown stored value is still words');
  });
});

describe('issueSentence', () => {
  const sentence = (input: unknown) => toFieldIssues(UpsertProductInput.safeParse(input).error!).map((i) => issueSentence(i, { producer: 'Producer' }));
  it("turns Zod's messages into sentences naming the field", () => {
    assert.deepEqual(sentence({ name: 'T2', identifier: 't2', producer: 'x'.repeat(256) }), ['Producer must be at most 255 characters.']);
    assert.deepEqual(sentence({ name: ' ', identifier: 't2' }), ['Name must not be empty.']);
    assert.deepEqual(sentence({ identifier: 't2' }), ['Name is required.']);
    assert.deepEqual(sentence({ name: 'T2', identifier: 't2', colour: 'red' }), ['This form does not take "colour".']);
    assert.equal(
      issueSentence({ path: 'category', message: 'Invalid option: expected one of "default"|"important_i"' }),
      'Category must be one of the offered choices.',
    );
    assert.equal(
      issueSentence({ path: 'cvssVector', message: 'Too big: expected string to have <=200 characters' }),
      'CVSS vector must be at most 200 characters.',
    );
    assert.equal(issueSentence({ path: 'url', message: 'Invalid URL' }), 'URL must be a web address such as https://example.org.');
  });
  it("replaces the field's JSON name at the start of a verb's own message by its label", () => {
    assert.equal(
      issueSentence({ path: 'productName', message: 'productName must be at most 255 bytes' }, { productName: 'Affected product' }),
      'Affected product must be at most 255 bytes.',
    );
    assert.equal(issueSentence({ path: 'duplicateOf', message: 'no such report of this company' }), 'Original report id: no such report of this company.');
    assert.equal(issueSentence({ path: 'email', message: 'expected an e-mail address' }), 'E-mail address must be an e-mail address.');
  });
});

describe('words on the pages', () => {
  let t: TestApp;
  let acme: Tenant;
  let client: ReturnType<typeof dashboardClient>;
  before(async () => {
    t = await createTestApp();
    acme = await makeTenant(t.database.db);
    client = dashboardClient(t, await signInCookie(t, acme.admin.email));
  });
  after(() => t.close());

  it("re-renders a refused form with a sentence naming the field, not Zod's message", async () => {
    const res = await client.form('/products', { name: 'T2', identifier: 't2', producer: 'x'.repeat(256), category: 'default' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /id="producer-error">Producer must be at most 255 characters\.</);
    assert.doesNotMatch(res.body, /Too big|expected string/);
  });

  it('shows the type, source and state of a report in words', async () => {
    const { report } = await fileReport(
      t.database.db,
      operatorContext(),
      acme.company,
      { description: 'Unsigned firmware accepted', vulnerabilityType: 'insecure_update' },
      'portal_form',
    );
    const res = await client.page(`/reports/${report.submissionId}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<dt>Type \(as given\)<\/dt><dd>Insecure update mechanism<\/dd>/);
    assert.match(res.body, /through the portal&#39;s report form/);
    assert.doesNotMatch(res.body, /insecure_update<|portal_form/);
  });
});
