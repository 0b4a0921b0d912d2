import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { classifyHost } from '../../src/http/zones.js';

const c = loadConfig({ PUBLIC_URL: 'https://cradle.example.com' });

describe('classifyHost', () => {
  it('recognises the site host with or without a port, in any case', () => {
    assert.deepEqual(classifyHost(c, 'cradle.example.com'), { kind: 'site' });
    assert.deepEqual(classifyHost(c, 'Cradle.Example.COM:443'), { kind: 'site' });
    assert.deepEqual(classifyHost(c, 'cradle.example.com.'), { kind: 'site' });
  });
  it('extracts the slug of a one-label portal subdomain', () => {
    assert.deepEqual(classifyHost(c, 'acme.cradle.example.com'), { kind: 'portal', slug: 'acme' });
    assert.deepEqual(classifyHost(c, 'ACME.cradle.example.com:8443'), { kind: 'portal', slug: 'acme' });
  });
  it('puts everything else in the other zone', () => {
    for (const h of [undefined, '', 'example.com', 'a.b.cradle.example.com', 'evilcradle.example.com', '.cradle.example.com', '[::1]:3000', '127.0.0.1']) {
      assert.deepEqual(classifyHost(c, h), { kind: 'other' }, String(h));
    }
  });
});
