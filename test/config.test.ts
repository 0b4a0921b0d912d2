import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, defaultUrlMissesPort, loadConfig, portalUrl, siteUrl } from '../src/config.js';

describe('loadConfig', () => {
  it('applies the defaults of README "Configuration" when nothing is set', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(siteUrl(c), 'http://localhost:3000');
    assert.equal(c.siteHost, 'localhost');
    assert.equal(c.dataDir, './data');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.webhookAllowPrivateNetworks, false);
    assert.equal(c.trustProxy, false);
  });

  it('tells when the default PUBLIC_URL names another port than the server listens on', () => {
    assert.equal(defaultUrlMissesPort(loadConfig({ PORT: '8080' }), { PORT: '8080' }), true);
    assert.equal(defaultUrlMissesPort(loadConfig({}), {}), false);
    assert.equal(defaultUrlMissesPort(loadConfig({ PORT: '0' }), { PORT: '0' }), false);
    const set = { PORT: '8080', PUBLIC_URL: 'https://cradle.example.com' };
    assert.equal(defaultUrlMissesPort(loadConfig(set), set), false);
  });

  it('derives portal URLs with the site scheme and port', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://cradle.example.com:8443' });
    assert.equal(portalUrl(c, 'acme'), 'https://acme.cradle.example.com:8443');
    assert.equal(portalUrl(loadConfig({}), 'acme'), 'http://acme.localhost:3000');
  });

  it('parses TRUST_PROXY as boolean, hop count or address list', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1']);
  });

  it('takes MAIL_FROM as SMTP takes a mailbox (a one-label host such as localhost too) and says what is wrong otherwise', () => {
    const mail = (from: string) => loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: from }).mail?.from;
    assert.equal(mail('cradle@localhost'), 'cradle@localhost');
    assert.equal(mail('psirt+cradle@mail.example.com'), 'psirt+cradle@mail.example.com');
    assert.throws(() => mail('Cradle <cradle@example.com>'), /no display name, quotes or angle brackets/);
    assert.throws(() => mail('cradle@exa mple.com'), /must be a host name/);
    assert.throws(() => mail('cradle@-bad.example'), /must be a host name/);
  });

  it('treats empty strings as unset', () => {
    assert.equal(loadConfig({ DATABASE_URL: '', PORT: '' }).port, 3000);
  });

  for (const [name, value, fragment] of [
    ['PORT', 'eighty', 'PORT'],
    ['PORT', '70000', 'PORT'],
    ['PUBLIC_URL', 'ftp://x', 'PUBLIC_URL'],
    ['PUBLIC_URL', 'http://localhost:3000/cradle', 'bare origin'],
    ['DATABASE_URL', 'mysql://x', 'postgres://'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'maybe', 'true or false'],
    ['TRUST_PROXY', 'nonsense', 'not an address'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL'],
  ] as const) {
    it(`refuses ${name}=${value} with a message naming it`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (e: unknown) => e instanceof ConfigError && e.message.includes(fragment) && e.message.includes(name),
      );
    });
  }
});
