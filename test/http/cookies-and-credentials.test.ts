import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCookies, serializeCookie } from '../../src/http/cookies.js';
import { misplacedInBody } from '../../src/http/misplaced-credential.js';

const KEY = 'ab'.repeat(32);

describe('cookie parsing', () => {
  it('parses pairs, keeps the first of duplicates, and never throws on junk', () => {
    assert.deepEqual({ ...parseCookies('a=1; b="two"; a=3; junk; =x; c=%E0%A4%A') }, { a: '1', b: 'two', c: '%E0%A4%A' });
    assert.deepEqual({ ...parseCookies(undefined) }, {});
    assert.equal(parseCookies('__proto__=x').__proto__, 'x', 'no prototype pollution: a plain own key');
  });

  it('serialises with HttpOnly and SameSite always, Secure on request', () => {
    assert.equal(
      serializeCookie('s', 'v;1', { secure: true, sameSite: 'Strict', maxAgeSeconds: 60 }),
      's=v%3B1; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=60',
    );
  });
});

describe('credentials in a body', () => {
  it('flags credential-like field names whatever the value, and key-shaped values as candidates', () => {
    const found = misplacedInBody({ token: 'x', name: 'Thermostat', digest: KEY, auth: `Bearer ${KEY}` });
    assert.deepEqual(found, [
      { where: 'body field', name: 'token', named: true },
      { where: 'body field', name: 'digest', named: false, candidate: KEY },
      { where: 'body field', name: 'auth', named: true, candidate: KEY },
    ]);
  });

  it('ignores non-objects and nested values', () => {
    assert.deepEqual(misplacedInBody([KEY]), []);
    assert.deepEqual(misplacedInBody('token'), []);
    assert.deepEqual(misplacedInBody({ nested: { token: KEY } }), []);
  });
});
