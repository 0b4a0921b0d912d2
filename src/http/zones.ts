import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';

/**
 * Every request belongs to one zone, from its Host header:
 * - `site`:   the PUBLIC_URL host (API, dashboard, discovery documents, set-up);
 * - `portal`: `{slug}.{site host}`, a company's public portal;
 * - `other`:  anything else, answered 421 (only the health probes answer on any host).
 * The port is ignored: proxies commonly rewrite it.
 */
export type Zone = { kind: 'site' } | { kind: 'portal'; slug: string } | { kind: 'other' };

const ZONE = Symbol('cradle.zone');
type WithZone = IncomingMessage & { [ZONE]?: Zone };

export function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1) || undefined;
  const colon = h.lastIndexOf(':');
  const name = colon >= 0 ? h.slice(0, colon) : h;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

export function classifyHost(config: Config, hostHeader: string | undefined): Zone {
  const name = hostnameOf(hostHeader);
  if (name === undefined) return { kind: 'other' };
  if (name === config.siteHost) return { kind: 'site' };
  const suffix = `.${config.siteHost}`;
  if (name.endsWith(suffix)) {
    const label = name.slice(0, -suffix.length);
    // One label only: `a.b.{site}` is not a portal. Slug syntax is checked by the lookup.
    if (label.length > 0 && !label.includes('.')) return { kind: 'portal', slug: label };
  }
  return { kind: 'other' };
}

/** The zone of a raw request, computed once and cached on it (the router and hooks both ask). */
export function zoneOf(config: Config, req: IncomingMessage): Zone {
  const r = req as WithZone;
  return (r[ZONE] ??= classifyHost(config, req.headers.host));
}

/** find-my-way constraint: routes declare `constraints: { zone: 'site' | 'portal' }`. */
export function zoneConstraint(config: Config) {
  return {
    name: 'zone',
    storage<T>() {
      const store = new Map<string, T>();
      return {
        get: (k: string): T | null => store.get(k) ?? null,
        set: (k: string, v: T): void => void store.set(k, v),
      };
    },
    deriveConstraint: (req: IncomingMessage) => zoneOf(config, req).kind,
    // Routes without a zone constraint (health probes, static assets) match every zone.
    mustMatchWhenDerived: false,
    validate(value: unknown) {
      if (value !== 'site' && value !== 'portal') throw new Error('zone must be site or portal');
    },
  };
}
