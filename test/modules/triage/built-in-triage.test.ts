import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtInTriage } from '../../../src/modules/triage/built-in-triage.js';
import { SIMILARITY_CHARS, similarities } from '../../../src/modules/triage/text-similarity.js';

const earlier = [
  {
    id: 'r-login',
    text:
      'The login endpoint /api/v2/auth/login of the T2 thermostat web interface accepts a forged session cookie. ' +
      'By setting the cookie sid to a value derived from the device serial number, an unauthenticated attacker on the local network gets an admin session. ' +
      'Steps: 1. read the serial from the mDNS announcement 2. compute md5(serial) 3. send GET /api/v2/settings with Cookie: sid=<hash>.',
  },
  {
    id: 'r-dos',
    text: 'Sending a UDP packet of more than 1500 bytes to port 5683 (CoAP) makes the hub crash and reboot. Repeating it keeps the device offline.',
  },
  {
    id: 'r-xss',
    text: 'Stored cross-site scripting in the device name field of the mobile app: a name like <img src=x onerror=alert(1)> runs in the web dashboard of every user sharing the home.',
  },
];

describe('built-in triage', () => {
  it('flags a re-worded report of the same flaw as a likely duplicate, and only that one', () => {
    const s = builtInTriage(
      {
        description:
          'Authentication bypass on the T2 thermostat: the web interface trusts the session cookie sid, which is just md5 of the serial number. ' +
          'Anyone on the local network can compute md5(serial) from the mDNS announcement and call /api/v2/settings with Cookie: sid=<hash> as admin, no password needed.',
        productName: 'Thermostat T2',
      },
      earlier,
    );
    assert.deepEqual(
      s.duplicates.map((d) => d.reportId),
      ['r-login'],
    );
    assert.ok((s.duplicates[0]?.similarity ?? 0) >= 0.45);
    assert.equal(s.vulnerabilityType?.value, 'authentication_bypass');
    assert.equal(s.severity.level, 'high');
    assert.equal(s.spam.likelihood, 0);
    assert.match(s.summary, /^Reported authentication bypass in Thermostat T2: Authentication bypass on the T2 thermostat/);
  });

  it('does not call an unrelated report a duplicate', () => {
    const s = builtInTriage(
      {
        description:
          'The firmware update is downloaded over plain HTTP and installed without any signature check, so a man in the middle can install modified firmware.',
      },
      earlier,
    );
    assert.deepEqual(s.duplicates, []);
    assert.equal(s.vulnerabilityType?.value, 'insecure_update');
  });

  it('rates remote code execution as critical', () => {
    const s = builtInTriage(
      { description: 'Unauthenticated remote code execution: a crafted POST to /cgi-bin/diag with host=;id gives a root shell (command injection).' },
      [],
    );
    assert.equal(s.severity.level, 'critical');
    assert.equal(s.vulnerabilityType?.value, 'injection');
  });

  it('gives spam a high likelihood with its signals, and real reports none', () => {
    const spam = builtInTriage({ description: 'BEST CASINO BONUS!!! click here https://a.example https://b.example https://c.example buy now' }, []);
    assert.ok(spam.spam.likelihood >= 0.8, String(spam.spam.likelihood));
    assert.ok(spam.spam.signals.some((x) => x.startsWith('promotional words: casino')));
    assert.ok(spam.spam.signals.includes('no technical detail'));
    const real = builtInTriage({ description: earlier[1]?.text as string }, []);
    assert.equal(real.spam.likelihood, 0);
    assert.equal(real.vulnerabilityType?.value, 'denial_of_service');
  });

  it('suggests nothing it cannot see, and keeps a medium default severity', () => {
    const s = builtInTriage({ description: 'Something about the product seems wrong to me when I use the settings page in a certain way.' }, []);
    assert.equal(s.vulnerabilityType, null);
    assert.equal(s.severity.level, 'medium');
  });
});

describe('duplicate search cost (issue 24)', () => {
  it('compares the first 4,000 characters of each report only, so 500 reports at the size limits stay cheap', () => {
    const opening = 'Stored XSS in the device name field of the T2 web UI lets an attacker run script in the admin session. ';
    const filler = (word: string) => ` ${word}`.repeat(20_000); // about 112 KiB per report, as at the field limits
    const same = similarities(`${opening.repeat(50)}${filler('alpha')}`, [{ id: 'x', text: `${opening.repeat(50)}${filler('omega')}` }]);
    assert.equal(Math.round((same[0]?.similarity ?? 0) * 1000) / 1000, 1, 'what lies beyond the clip does not count');
    const docs = Array.from({ length: 500 }, (_, i) => ({ id: String(i), text: `${i} ${opening.repeat(50)}${filler(`w${i}`)}` }));
    const result = similarities(opening.repeat(50) + filler('query'), docs);
    assert.equal(result.length, 500);
    assert.ok(
      result.every((r) => r.similarity > 0.5),
      'each shares the opening',
    );
    assert.equal(SIMILARITY_CHARS, 4000);
  });
});
