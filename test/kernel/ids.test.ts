import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { safeEqual, sha256Hex } from '../../src/kernel/ids.js';

// Stored key, session and token digests were written by earlier releases: the digest must stay
// SHA-256 of the UTF-8 text, as lowercase hex, whatever call computes it.
describe('sha256Hex', () => {
  it('is SHA-256 of the UTF-8 text in lowercase hex (FIPS 180-2 vector "abc")', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('digests non-ASCII text as its UTF-8 bytes, as the stored digests were made', () => {
    for (const s of ['', 'ü', 'Schlüssel 🔑', 'a'.repeat(64)]) {
      assert.equal(sha256Hex(s), createHash('sha256').update(s, 'utf8').digest('hex'));
    }
  });
});

describe('safeEqual', () => {
  it('compares equal and unequal strings, and strings of other lengths', () => {
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
  });
});
