import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const get = (url: string, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url, headers: { host: SITE } });
const local = (href: string) => {
  const u = new URL(href);
  assert.equal(u.origin, 'http://localhost:3000', href);
  return u.pathname;
};

describe('/.well-known/api-catalog', () => {
  it('is an RFC 9727 linkset with one context per API, each link served', async () => {
    const res = await get('/.well-known/api-catalog');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    const { linkset } = res.json() as { linkset: Record<string, { href: string; type: string }[]>[] };
    assert.deepEqual(
      linkset.map((l) => l.anchor as unknown as string),
      ['http://localhost:3000/api/v1', 'http://localhost:3000/api/mcp', 'http://localhost:3000/api/portal/batch'],
    );
    assert.equal(linkset[0]?.['service-desc']?.[0]?.type, 'application/vnd.oai.openapi+json;version=3.1');
    for (const ctx of linkset) {
      for (const [rel, links] of Object.entries(ctx)) {
        if (rel === 'anchor') continue;
        for (const l of links as { href: string }[]) assert.equal((await get(local(l.href))).statusCode, 200, `${rel} ${l.href}`);
      }
    }
  });

  it('answers HEAD with the api-catalog Link and no body', async () => {
    const res = await get('/.well-known/api-catalog', 'HEAD');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.link, '</.well-known/api-catalog>; rel="api-catalog"');
    assert.equal(res.body, '');
  });
});

describe('/.well-known/agent-skills/index.json', () => {
  it('lists real SKILL.md files whose digests verify against the served bytes', async () => {
    const res = await get('/.well-known/agent-skills/index.json');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const index = res.json() as { $schema: string; skills: { name: string; type: string; description: string; url: string; digest: string }[] };
    assert.equal(index.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    assert.deepEqual(index.skills.map((s) => s.name).sort(), [
      'file-vulnerability-report',
      'push-evidence-from-ci',
      'read-compliance-gaps',
      'triage-reports',
      'use-cradle-mcp',
    ]);
    for (const s of index.skills) {
      assert.equal(s.type, 'skill-md');
      const file = await get(local(s.url));
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'text/markdown; charset=utf-8');
      assert.equal(s.digest, `sha256:${createHash('sha256').update(file.rawPayload).digest('hex')}`, s.name);
      const front = /^---\nname: ([a-z0-9-]+)\ndescription: (.+)\n---\n/.exec(file.body);
      assert.equal(front?.[1], s.name);
      assert.equal(front?.[2], s.description);
      assert.doesNotMatch(file.body, /\{site_/, 'placeholders are filled in');
      assert.ok(file.body.includes('http://localhost:3000/api/'), 'the skill names this instance');
    }
    assert.equal((await get('/.well-known/agent-skills/index.json', 'HEAD')).statusCode, 200);
  });
});

describe('/llms.txt', () => {
  it('has one H1, a summary, link sections, and every link is served', async () => {
    const res = await get('/llms.txt');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
    const lines = res.body.split('\n');
    assert.equal(lines.filter((l) => l.startsWith('# ')).length, 1);
    assert.equal(lines[0], '# Cradle');
    assert.ok(lines.find((l) => l.startsWith('> ')));
    assert.deepEqual(
      lines.filter((l) => l.startsWith('## ')),
      ['## API', '## Skills', '## Optional'],
    );
    const links = [...res.body.matchAll(/^- \[[^\]]+\]\((http[^)]+)\)(: .+)?$/gm)].map((m) => m[1] as string);
    assert.ok(links.length >= 9, `${links.length} links`);
    for (const href of links) assert.equal((await get(local(href))).statusCode, 200, href);
  });
});

describe('OAuth discovery', () => {
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) {
    it(`${path} answers 404`, async () => {
      const res = await get(path);
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    });
  }
});
