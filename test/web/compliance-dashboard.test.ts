import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Tenant;
let cookie: string;
const HOSTILE = '<script>alert(1)</script>';
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  cookie = await signInCookie(t, acme.admin.email);
  await upsertProduct(t.database.db, operatorContext(), acme.company.id, { name: `Cam ${HOSTILE}`, identifier: 'cam' });
});
after(() => t.close());

const page = (url: string, c = cookie) => t.app.inject({ url, headers: { host: SITE, cookie: c } });
const csrfOf = (body: string): string => /name="_csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? '';
const form = (url: string, fields: Record<string, string>, c = cookie) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { host: SITE, cookie: c, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
const row = (body: string, requirementId: string) => new RegExp(`data-requirement="${requirementId}">[\\s\\S]*?</tr>`).exec(body)?.[0] ?? '';

describe('dashboard compliance page', () => {
  it('lists the products with their readiness, escaped, under a Compliance nav entry', async () => {
    const res = await page('/compliance');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<a href="\/compliance" aria-current="page">Compliance<\/a>/);
    assert.ok(!res.body.includes(HOSTILE));
    assert.match(res.body, /Cam &lt;script&gt;/);
    assert.match(res.body, /<svg class="readiness"/);
    assert.match(res.body, /Next task/);
  });

  it('shows one product gaps first, and an attestation posted by form changes its verdict; withdrawal restores it', async () => {
    const before = await page('/compliance?product=cam');
    assert.equal(before.statusCode, 200);
    assert.ok(before.body.indexOf('verdict-gap') < before.body.indexOf('verdict-not_assessed'), 'gaps first');
    assert.match(row(before.body, 'cra-ai-p2-7'), /not assessed/);
    const post = await form('/compliance/attestations', {
      _csrf: csrfOf(before.body),
      product: 'cam',
      requirementId: 'cra-ai-p2-7',
      verdict: 'not_applicable',
      justification: 'No field updates: the firmware is in ROM.',
    });
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, '/compliance?product=cam&done=attested');
    const after = await page('/compliance?product=cam');
    assert.match(row(after.body, 'cra-ai-p2-7'), /not applicable[\s\S]*the firmware is in ROM/);
    assert.match(after.body, new RegExp(acme.admin.email.replace('.', '\\.')));
    const id = /action="\/compliance\/attestations\/([0-9a-f-]{36})\/withdraw"/.exec(after.body)?.[1] ?? '';
    const w = await form(`/compliance/attestations/${id}/withdraw`, { _csrf: csrfOf(after.body), product: 'cam' });
    assert.equal(w.statusCode, 303);
    assert.match(row((await page('/compliance?product=cam')).body, 'cra-ai-p2-7'), /not assessed/);
  });

  it('re-renders with 400 and the message when the justification is missing; refuses a form without its CSRF token', async () => {
    const p = await page('/compliance?product=cam');
    const bad = await form('/compliance/attestations', {
      _csrf: csrfOf(p.body),
      product: 'cam',
      requirementId: 'cra-ai-p2-7',
      verdict: 'not_applicable',
      justification: '',
      evidenceUrl: 'https://evidence.example/scan?run=7',
      expiresAt: '2027-01-31',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /a justification is required/);
    // What was typed is kept: the requirement, verdict, evidence link and review date.
    assert.match(bad.body, /<option value="cra-ai-p2-7" selected>/);
    assert.match(bad.body, /<option value="not_applicable" selected>/);
    assert.match(bad.body, /name="evidenceUrl" value="https:\/\/evidence\.example\/scan\?run=7"/);
    assert.match(bad.body, /name="expiresAt" value="2027-01-31"/);
    const noToken = await form('/compliance/attestations', { product: 'cam', requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'x' });
    assert.equal(noToken.statusCode, 403);
  });

  it('saves product facts from the form, which closes the support-period gap', async () => {
    const p = await page('/compliance?product=cam');
    assert.match(row(p.body, 'cra-aii-7-support-end'), /verdict-gap/);
    const post = await form('/compliance/products/cam', {
      _csrf: csrfOf(p.body),
      category: 'important_ii',
      placedOnMarketAt: '2026-02-01',
      supportEndsAt: '2032-02-01',
      supportJustification: '',
    });
    assert.equal(post.statusCode, 303);
    const after = await page('/compliance?product=cam');
    assert.match(row(after.body, 'cra-aii-7-support-end'), /verdict-met/);
    assert.match(row(after.body, 'cra-art13-8-support'), /verdict-met/);
    assert.match(after.body, /EU-type examination \(modules B\+C\)/);
  });

  it('answers 404 for a product of another company', async () => {
    const rival = await makeTenant(t.database.db);
    await upsertProduct(t.database.db, operatorContext(), rival.company.id, { name: 'Theirs', identifier: 'theirs' });
    assert.equal((await page('/compliance?product=theirs')).statusCode, 404);
  });

  it('holds back the next task and deadline below the Reporting plan', async () => {
    await updateCompany(t.database.db, operatorContext(), acme.company.slug, { plan: 'free' });
    const res = await page('/compliance');
    assert.match(res.body, /available from the Reporting plan upward; this company is on the Free plan/);
    assert.ok(!res.body.includes('Next task'));
    await updateCompany(t.database.db, operatorContext(), acme.company.slug, { plan: 'reporting' });
    assert.match((await page('/compliance')).body, /Next task/);
  });
});
