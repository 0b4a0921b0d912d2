import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';

/**
 * SSRF guard for webhook targets. Only public unicast addresses are allowed: loopback, private,
 * link-local (incl. the 169.254.169.254 metadata service), CGNAT (incl. 100.100.100.200), unique-local
 * (incl. fd00:ec2::254), multicast, broadcast, reserved and documentation ranges, and every IPv6 form
 * that embeds an IPv4 address (mapped, 6to4, Teredo, NAT64) are refused. ipaddr.js classifies;
 * WHATWG URL parsing has already normalised encoded IPv4 forms (2130706433, 0x7f.1, 127.1).
 */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address.split('%')[0] ?? address);
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291): URL parsing writes [::127.0.0.1] as
  // [::7f00:1], which ipaddr.js calls unicast; the first 96 bits zero is never a public address.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return true;
  return parsed.range() !== 'unicast';
}

export const WEBHOOK_URL_MAX = 2048;

/** Scheme, host and port of an endpoint, its path and query replaced by `/…`. */
export function maskWebhookUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.origin}/…`;
  } catch {
    return '…';
  }
}

/** Static checks at registration and before each attempt. Returns the parsed URL. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  const bad = (why: string) => new AppError(ErrorCode.VALIDATION, `url: ${why}`, { issues: [{ path: 'url', message: why }] });
  if (raw.length > WEBHOOK_URL_MAX) throw bad(`must be at most ${WEBHOOK_URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('must use http or https');
  if (url.username || url.password) throw bad('must not carry credentials; use the signing secret to authenticate deliveries');
  if (url.hash) throw bad('must not have a fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !allowPrivate && isForbiddenAddress(host)) {
    throw bad('points at a loopback, private, link-local or otherwise non-public address');
  }
  // A trailing dot names the same host (`localhost.` is localhost): checked without it.
  if (!isIP(host) && !allowPrivate && /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i.test(host.replace(/\.+$/, ''))) {
    throw bad('names a local-only host');
  }
  return url;
}

/**
 * A `lookup` for http.request that resolves the name and refuses if ANY resolved address is
 * forbidden, then connects to the address it checked. Checking the address actually connected to
 * (not a separate pre-resolution) is what defeats DNS rebinding.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const refused = !allowPrivate && list.find((a) => isForbiddenAddress(a.address));
      if (refused) {
        const e = Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'EWEBHOOK_FORBIDDEN_ADDRESS' });
        return callback(e, '', 0);
      }
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}
