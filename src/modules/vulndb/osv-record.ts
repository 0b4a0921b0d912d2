// An OSV record (https://ossf.github.io/osv-schema/) read into the rows the advisory store keeps.
// Only what matching and display need is kept; entries of ecosystems Cradle does not match are
// counted by the caller, not stored.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { osvPackage } from './ecosystems.js';

const Text = z.string().max(200_000);
const Event = z
  .object({ introduced: z.string().optional(), fixed: z.string().optional(), last_affected: z.string().optional(), limit: z.string().optional() })
  .loose();
const OsvRecord = z
  .object({
    id: z.string().min(1).max(200),
    modified: z.iso.datetime({ offset: true }),
    published: z.iso.datetime({ offset: true }).optional(),
    withdrawn: z.iso.datetime({ offset: true }).optional(),
    aliases: z.array(z.string().max(200)).max(1000).nullish(),
    summary: Text.nullish(),
    details: Text.nullish(),
    severity: z.array(z.object({ type: z.string(), score: z.string().max(500) }).loose()).nullish(),
    references: z.array(z.object({ type: z.string(), url: z.string().max(2000) }).loose()).nullish(),
    affected: z
      .array(
        z
          .object({
            package: z.object({ ecosystem: z.string(), name: z.string(), purl: z.string().optional() }).loose().optional(),
            ranges: z.array(z.object({ type: z.string(), events: z.array(Event) }).loose()).nullish(),
            versions: z.array(z.string()).nullish(),
          })
          .loose(),
      )
      .nullish(),
    database_specific: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();

export type StoredAffected = {
  ordinal: number;
  packageKey: string;
  type: string;
  release: string | null;
  ranges: { type: string; events: Record<string, string>[] }[];
  versions: string[];
};

export type StoredRecord = {
  id: string;
  modified: Date;
  published: Date | null;
  withdrawn: Date | null;
  aliases: string[];
  summary: string | null;
  details: string | null;
  severity: { type: string; score: string }[];
  references: { type: string; url: string }[];
  cwes: string[];
  sha256: string;
  affected: StoredAffected[];
};

export type ReadRecord = { ok: true; record: StoredRecord; skippedEntries: number } | { ok: false; error: string };

const KEPT_RANGES = new Set(['SEMVER', 'ECOSYSTEM']);

/** Parses one record's bytes; a record that is not OSV is an error for the caller to count. */
export function readOsvRecord(bytes: Buffer): ReadRecord {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const parsed = OsvRecord.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `not an OSV record: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}` };
  }
  const r = parsed.data;
  const affected: StoredAffected[] = [];
  let skippedEntries = 0;
  for (const a of r.affected ?? []) {
    const pkg = a.package ? osvPackage(a.package.ecosystem, a.package.name) : null;
    if (!pkg) {
      skippedEntries++;
      continue;
    }
    const ranges = (a.ranges ?? [])
      .filter((x) => KEPT_RANGES.has(x.type))
      .map((x) => ({ type: x.type, events: x.events.map(pickEvent).filter((e): e is Record<string, string> => e !== null) }));
    affected.push({ ordinal: affected.length, ...pkg, ranges, versions: a.versions ?? [] });
  }
  const cwes = r.database_specific?.cwe_ids;
  return {
    ok: true,
    skippedEntries,
    record: {
      id: r.id,
      modified: new Date(r.modified),
      published: r.published ? new Date(r.published) : null,
      withdrawn: r.withdrawn ? new Date(r.withdrawn) : null,
      aliases: [...new Set((r.aliases ?? []).filter((x) => x !== r.id))],
      summary: noNul(r.summary),
      details: noNul(r.details),
      severity: (r.severity ?? []).map((s) => ({ type: s.type, score: s.score })),
      references: (r.references ?? []).slice(0, 100).map((x) => ({ type: x.type, url: x.url })),
      cwes: Array.isArray(cwes) ? cwes.filter((c): c is string => typeof c === 'string').slice(0, 50) : [],
      sha256: createHash('sha256').update(bytes).digest('hex'),
      affected,
    },
  };
}

function pickEvent(e: z.infer<typeof Event>): Record<string, string> | null {
  for (const k of ['introduced', 'fixed', 'last_affected', 'limit'] as const) {
    const v = e[k];
    if (typeof v === 'string') return { [k]: v };
  }
  return null;
}

/** PostgreSQL text cannot hold U+0000; a record carrying one keeps the rest of its text. */
const noNul = (s: string | null | undefined): string | null => (s == null ? null : s.replaceAll('\u0000', ''));
