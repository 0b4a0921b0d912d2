import { BlockList, isIP } from 'node:net';

/**
 * Source-address allowlists of API keys: single addresses and CIDR ranges, IPv4 and IPv6.
 * Matching uses node's BlockList (maintained, handles IPv6 prefixes correctly) rather than
 * hand-rolled bit arithmetic.
 */

/** Normalises one entry (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`) or returns undefined when invalid. */
export function normaliseAllowlistEntry(raw: string): string | undefined {
  const s = raw.trim().toLowerCase();
  const [addr, bits, ...rest] = s.split('/');
  if (rest.length > 0 || addr === undefined || addr.includes('%')) return undefined;
  const family = isIP(addr);
  if (family === 0) return undefined;
  if (bits === undefined) return addr;
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  const n = Number(bits);
  if (n > (family === 4 ? 32 : 128)) return undefined;
  return `${addr}/${n}`;
}

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`) counts as its IPv4 address. */
export function canonicalAddress(ip: string | undefined): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  if (!ip) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const a = mapped?.[1] ?? ip;
  const family = isIP(a);
  if (family === 0) return undefined;
  return { address: a, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Whether `ip` is inside the allowlist. An empty list allows every address. With a list set, an
 * address that cannot be resolved (missing, or not an IP) is refused: docs/access.md
 * "Authenticating a request".
 */
export function addressAllowed(allowlist: readonly string[], ip: string | undefined): boolean {
  if (allowlist.length === 0) return true;
  const client = canonicalAddress(ip);
  if (!client) return false;
  const list = new BlockList();
  for (const entry of allowlist) {
    const [addr, bits] = entry.split('/');
    const family = isIP(addr ?? '');
    if (!addr || family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return list.check(client.address, client.family);
}
