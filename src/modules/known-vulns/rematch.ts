import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { selectRows, selectLargeRows } from '../../db/sql-rows.js';
import { lockAllFor, lockFor } from '../../db/advisory-lock.js';
import { param } from '../../kernel/evidence-store.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { type ComponentIn, loadAffected, packageKeysOf, packagesOf } from './find-known-vulns.js';
import { openAwareness } from './awareness.js';
import { matchSbom, matchSboms } from './match-sbom.js';

type Latest = { id: string; company_id: string; product_id: string; identifier: string };
type ComponentRow = ComponentIn & { ordinal: number; package_key: string | null };
type TouchedRow = Latest & { name: string; version: string | null; purl: string | null };

export type RematchResult = { sboms: number; opened: number; resolved: number };

const LATEST = sql`s.version = (select max(l.version) from sboms l where l.product_id = s.product_id)`;
const KEYS_PER_QUERY = 5000;
/** SBOMs re-matched per transaction: few statements per chunk, and no transaction holds many locks long. */
const SBOMS_PER_TRANSACTION = 100;

/**
 * After a feed import (Cradle's own cross-company code): every product's latest SBOM that was
 * never matched is matched whole, and the others re-match only their components whose packages'
 * advisories changed: one query finds those components across every company, the advisories of
 * the changed packages are loaded once, and the SBOMs are re-matched in chunks, each chunk in one
 * transaction under its products' SBOM locks (a push racing the re-match waits, never interleaves).
 */
export async function rematchAfterFeed(db: Db, changed: ReadonlySet<string>, now: Date): Promise<RematchResult> {
  const result: RematchResult = { sboms: 0, opened: 0, resolved: 0 };
  const never = await selectRows<Latest>(
    db,
    sql`
    select s.id, s.company_id, s.product_id, p.identifier from sboms s join products p on p.id = s.product_id
    where ${LATEST} and not exists (select 1 from sbom_match_runs r where r.sbom_id = s.id)`,
  );
  for (const s of never) add(result, await matchWhole(db, s, now));
  const keys = [...changed];
  const bySbom = new Map<string, { sbom: Latest; components: ComponentIn[] }>();
  for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
    const rows = await selectLargeRows<TouchedRow>(
      db,
      sql`
      select s.id, s.company_id, s.product_id, p.identifier, c.ordinal, c.name, c.version, c.purl
      from sbom_components c join sboms s on s.id = c.sbom_id join products p on p.id = s.product_id
      where c.package_key = any(${param(keys.slice(i, i + KEYS_PER_QUERY))}::text[]) and ${LATEST}
        and exists (select 1 from sbom_match_runs r where r.sbom_id = s.id)`,
      sql`q.id, q.ordinal`,
    );
    for (const r of rows) {
      const entry = bySbom.get(r.id) ?? { sbom: { id: r.id, company_id: r.company_id, product_id: r.product_id, identifier: r.identifier }, components: [] };
      entry.components.push({ name: r.name, version: r.version, purl: r.purl });
      bySbom.set(r.id, entry);
    }
  }
  if (bySbom.size === 0) return result;
  const advisories = await loadAffected(db, keys);
  const touched = [...bySbom.values()];
  for (let i = 0; i < touched.length; i += SBOMS_PER_TRANSACTION) {
    const chunk = touched.slice(i, i + SBOMS_PER_TRANSACTION);
    const done = await db.transaction(async (tx) => {
      await lockAllFor(
        tx,
        'sbom',
        chunk.map((c) => c.sbom.product_id),
      );
      // Still the latest? A push between the query and the locks has matched its own version.
      const still = new Set(
        (await selectRows<{ id: string }>(tx, sql`select s.id from sboms s where s.id = any(${param(chunk.map((c) => c.sbom.id))}::uuid[]) and ${LATEST}`)).map(
          (r) => r.id,
        ),
      );
      const items = chunk
        .filter((c) => still.has(c.sbom.id))
        .map((c) => {
          const packages = packagesOf(c.components);
          const target = { companyId: c.sbom.company_id, productId: c.sbom.product_id, productIdentifier: c.sbom.identifier, sbomId: c.sbom.id, now };
          return { target, components: c.components, packages, only: new Set(packageKeysOf(packages, changed)) };
        });
      return matchSboms(tx, items, advisories);
    });
    for (const r of done) add(result, r);
  }
  return result;
}

function add(total: RematchResult, r: { opened: unknown[]; resolved: number } | null): void {
  if (!r) return;
  total.sboms++;
  total.opened += r.opened.length;
  total.resolved += r.resolved;
}

/** A latest SBOM never matched (stored before the matcher existed): matched whole, once. */
async function matchWhole(db: Db, s: Latest, now: Date) {
  return db.transaction(async (tx) => {
    await lockFor(tx, 'sbom', s.product_id);
    const [still] = await selectRows<{ ok: boolean }>(tx, sql`select ${LATEST} as ok from sboms s where s.id = ${s.id}::uuid`);
    if (!still?.ok) return null;
    const components = await selectRows<ComponentRow>(
      tx,
      sql`select ordinal, name, version, purl, package_key from sbom_components where sbom_id = ${s.id}::uuid order by ordinal`,
    );
    const packages = packagesOf(components);
    await backfillPackageKeys(
      tx,
      s.id,
      components,
      packages.map((p) => ('reason' in p ? null : p.packageKey)),
    );
    return matchSbom(tx, { companyId: s.company_id, productId: s.product_id, productIdentifier: s.identifier, sbomId: s.id, now }, components, packages);
  });
}

/** SBOMs stored before the matcher existed get their components' package keys once, on first match. */
async function backfillPackageKeys(tx: Executor, sbomId: string, rows: ComponentRow[], keys: (string | null)[]): Promise<void> {
  const todo = rows.flatMap((r, i) => (r.package_key === null && keys[i] ? [{ ordinal: r.ordinal, key: keys[i]! }] : []));
  if (todo.length === 0) return;
  await tx.execute(sql`
    update sbom_components c set package_key = t.k
    from unnest(${param(todo.map((t) => t.ordinal))}::int[], ${param(todo.map((t) => t.key))}::text[]) as t(o, k)
    where c.sbom_id = ${sbomId}::uuid and c.ordinal = t.o`);
}

/**
 * CVEs that entered the KEV catalog: every open match naming one is announced to its company
 * (`vulnerability.kev_added`, one event per product), as a KEV entry on a shipped component is
 * what starts an Article 14 awareness decision.
 */
export async function announceKevAdditions(db: Db, added: string[], removed: string[], now: Date): Promise<number> {
  // The KEV flag kept on matches (what compliance reads) follows the catalog first.
  const touched = [...added, ...removed];
  if (touched.length > 0) {
    await db.execute(sql`
      update vuln_matches m set in_kev = exists (select 1 from vulndb_kev k where k.cve_id = any(m.vuln_ids))
      where m.vuln_ids && ${param(touched)}::text[]`);
    await openAwareness(db, now, 'all');
  }
  if (added.length === 0) return 0;
  const rows = await selectRows<{
    company_id: string;
    identifier: string;
    vuln_key: string;
    vuln_ids: string[];
    component_name: string;
    component_version: string;
  }>(
    db,
    sql`
    select m.company_id, p.identifier, m.vuln_key, m.vuln_ids, m.component_name, m.component_version
    from vuln_matches m join products p on p.id = m.product_id
    where m.resolved_at is null and m.vuln_ids && ${param(added)}::text[]
    order by m.company_id, p.identifier, m.vuln_key`,
  );
  const byProduct = new Map<string, typeof rows>();
  for (const r of rows) {
    const k = `${r.company_id}/${r.identifier}`;
    const list = byProduct.get(k);
    if (list) list.push(r);
    else byProduct.set(k, [r]);
  }
  const addedSet = new Set(added);
  for (const list of byProduct.values()) {
    const first = list[0]!;
    await db.transaction(async (tx) => {
      await enqueueEvent(
        tx,
        first.company_id,
        'vulnerability.kev_added',
        {
          productIdentifier: first.identifier,
          matches: list.map((m) => ({
            vulnerability: m.vuln_key,
            cves: m.vuln_ids.filter((i) => addedSet.has(i)),
            component: m.component_name,
            version: m.component_version,
          })),
        },
        now,
      );
    });
  }
  return byProduct.size;
}
