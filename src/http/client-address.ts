import { isIPv4, isIPv6 } from 'node:net';

/**
 * The bucket a client address is counted in for per-address limits. IPv6 clients are counted per
 * /64: one subscriber usually holds a whole /64, so counting single addresses would let them rotate
 * through 2^64 of them. IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export function addressBucket(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** Eight 4-hex-digit groups of an IPv6 address (zone id dropped). */
export function expandIPv6(ip: string): string[] {
  const addr = ip.split('%')[0] ?? ip;
  const [head = '', tail] = addr.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => g.padStart(4, '0').toLowerCase());
}
