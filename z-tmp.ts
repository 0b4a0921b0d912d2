import { createTestApp, portalHost, SITE } from './test/helpers/app.js';
import { makeCompany } from './test/helpers/factories.js';
const t = await createTestApp();
const c = await makeCompany(t.database.db, { securityEmail: 'sec@acme.org', policyUrl: 'https://acme.org/p\nContact: evil' });
for (const url of ['/', '/submit', '/.well-known/security.txt']) {
  const r = await t.app.inject({ url, headers: { host: portalHost(c.slug) } });
  console.log(url, r.statusCode, r.body.slice(0, 3000));
}
const r = await t.app.inject({ method: 'POST', url: '/submit', headers: { host: portalHost(c.slug), 'content-type': 'application/x-www-form-urlencoded' }, payload: 'description=hello<b>&productName=&vulnerabilityType=injection&contactEmail=' });
console.log(r.statusCode, r.body.slice(600, 2500));
const b = await t.app.inject({ method: 'POST', url: '/api/portal/batch', headers: { host: SITE }, payload: { submissions: [{ slug: c.slug, description: 'x' }, { slug: 'nope', description: 'y' }] } });
console.log(b.statusCode, b.headers, b.body);
const b2 = await t.app.inject({ method: 'POST', url: '/api/portal/batch', headers: { host: SITE }, payload: { submissions: [{ slug: c.slug, description: 'x', zz: 1 }] } });
console.log(b2.statusCode, b2.headers, b2.body);
await t.close();
