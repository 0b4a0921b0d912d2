import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressAllowed, normaliseAllowlistEntry } from '../../../src/modules/keys/allowlist.js';

describe('API key allowlists', () => {
  it('an empty list allows any address, even an unresolvable one', () => {
    assert.equal(addressAllowed([], undefined), true);
  });

  it('matches single addresses and CIDR ranges, IPv4 and IPv6', () => {
    const list = ['192.0.2.7', '10.0.0.0/8', '2001:db8::/32'];
    assert.equal(addressAllowed(list, '192.0.2.7'), true);
    assert.equal(addressAllowed(list, '192.0.2.8'), false);
    assert.equal(addressAllowed(list, '10.255.1.1'), true);
    assert.equal(addressAllowed(list, '11.0.0.1'), false);
    assert.equal(addressAllowed(list, '2001:db8:ffff::1'), true);
    assert.equal(addressAllowed(list, '2001:db9::1'), false);
  });

  it('treats an IPv4-mapped IPv6 client as its IPv4 address', () => {
    assert.equal(addressAllowed(['192.0.2.0/24'], '::ffff:192.0.2.9'), true);
    assert.equal(addressAllowed(['192.0.2.0/24'], '::ffff:198.51.100.1'), false);
  });

  it('refuses an unresolvable client address when a list is set', () => {
    for (const ip of [undefined, '', 'unknown', '300.1.1.1']) assert.equal(addressAllowed(['0.0.0.0/0'], ip), false, String(ip));
  });

  it('normalises entries and rejects invalid ones', () => {
    assert.equal(normaliseAllowlistEntry(' 2001:DB8::/32 '), '2001:db8::/32');
    for (const bad of ['10.0.0.0/33', '::/129', 'example.com', '10.0.0.1/8/1', '10.0.0.0/-1', 'fe80::1%eth0', '10.0.0.0/ 8']) {
      assert.equal(normaliseAllowlistEntry(bad), undefined, bad);
    }
  });
});
