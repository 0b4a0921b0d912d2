import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/kernel/errors.js';
import { checkWebhookUrl, isForbiddenAddress } from '../../../src/modules/webhooks/url-guard.js';

describe('isForbiddenAddress', () => {
  it('allows public unicast addresses only', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '93.184.216.34']) assert.equal(isForbiddenAddress(a), false, a);
  });
  it('refuses loopback, private, link-local, CGNAT, metadata, multicast, reserved and IPv4-embedding IPv6', () => {
    for (const a of [
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.100.100.200',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '240.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      '::ffff:8.8.8.8',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      '2001::1',
      'not an address',
    ])
      assert.equal(isForbiddenAddress(a), true, a);
  });
});

describe('checkWebhookUrl', () => {
  const refused = (url: string, why: RegExp) =>
    assert.throws(
      () => checkWebhookUrl(url, false),
      (e: unknown) => e instanceof AppError && e.code === 'VALIDATION' && why.test(e.message),
      url,
    );

  it('accepts public http(s) URLs', () => {
    assert.equal(checkWebhookUrl('https://hooks.example.com/cradle?x=1', false).hostname, 'hooks.example.com');
    assert.equal(checkWebhookUrl('http://93.184.216.34:8080/h', false).port, '8080');
  });
  it('refuses encoded loopback forms, metadata and private addresses', () => {
    for (const u of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://0x7f000001/',
      'http://017700000001/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://10.0.0.5/',
      'http://192.168.0.1:8080/',
      'http://100.100.100.200/',
      'http://0/',
      // IPv4-compatible IPv6 (issue 24): URL parsing turns these into [::7f00:1] and [::a00:1].
      'http://[::127.0.0.1]/',
      'http://[::10.0.0.1]/',
      'http://[::7f00:1]/',
      'http://[::169.254.169.254]/',
    ])
      refused(u, /non-public/);
  });
  it('refuses local-only names, other schemes, credentials and garbage', () => {
    refused('http://localhost:8080/', /local-only/);
    refused('http://localhost./', /local-only/);
    refused('http://printer.local../', /local-only/);
    refused('http://printer.local/', /local-only/);
    refused('http://metadata.google.internal/', /local-only/);
    refused('ftp://example.com/', /http or https/);
    refused('file:///etc/passwd', /http or https/);
    refused('gopher://example.com/', /http or https/);
    refused('https://user:pw@example.com/', /credentials/);
    refused('not a url', /absolute/);
    refused(`https://example.com/${'a'.repeat(2100)}`, /at most/);
  });
  it('lets WEBHOOK_ALLOW_PRIVATE_NETWORKS through to loopback for development', () => {
    assert.equal(checkWebhookUrl('http://127.0.0.1:9999/hook', true).port, '9999');
    assert.equal(checkWebhookUrl('http://localhost:9999/hook', true).hostname, 'localhost');
  });
});
