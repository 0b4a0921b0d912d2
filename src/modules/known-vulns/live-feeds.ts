// The live feeds `cradle vulndb sync` fetches once: CISA KEV, FIRST EPSS, and the OSV archive of
// each ecosystem the stored SBOMs use (or those the operator names). Addresses from src/config.ts
// (VULNDB_OSV_URL, VULNDB_KEV_URL, VULNDB_EPSS_URL), so a mirror can stand in for them.
import { sql } from 'drizzle-orm';
import type { VulndbSettings } from '../../config.js';
import type { Db } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { validation } from '../../kernel/errors.js';
import { OSV_ECOSYSTEMS } from '../vulndb/ecosystems.js';
import { type FeedSyncResult, syncFeeds } from './feed-sync.js';

const ECOSYSTEM_OF_TYPE = new Map(Object.entries(OSV_ECOSYSTEMS).map(([eco, type]) => [type, eco]));

/** The OSV ecosystems named, spelled as the OSV bucket's folders; an unknown name is refused. */
export function osvEcosystems(names: readonly string[]): string[] {
  const known = Object.keys(OSV_ECOSYSTEMS);
  return [
    ...new Set(
      names.map((n) => {
        const eco = known.find((k) => k.toLowerCase() === n.trim().toLowerCase());
        if (!eco) throw validation(`unknown ecosystem "${n}": one of ${known.join(', ')}`);
        return eco;
      }),
    ),
  ];
}

/** The OSV ecosystems of the components of every stored SBOM (their package keys start with the purl type). */
export async function sbomEcosystems(db: Db): Promise<string[]> {
  const rows = await selectRows<{ type: string }>(
    db,
    sql`select distinct split_part(package_key, '/', 1) as type from sbom_components where package_key is not null`,
  );
  return rows
    .map((r) => ECOSYSTEM_OF_TYPE.get(r.type))
    .filter((e): e is string => e !== undefined)
    .sort();
}

/** The URLs of the live feeds for these ecosystems: OSV `<base><Ecosystem>/all.zip`, then KEV and EPSS. */
export function liveFeedUrls(live: VulndbSettings['live'], ecosystems: readonly string[]): string[] {
  const base = live.osvBase.endsWith('/') ? live.osvBase : `${live.osvBase}/`;
  return [...ecosystems.map((e) => new URL(`${encodeURIComponent(e)}/all.zip`, base).href), live.kev, live.epss];
}

export type SyncOnce = { ecosystems: string[]; feeds: FeedSyncResult[] };

/** Fetches the live feeds once and imports them (`cradle vulndb sync`): conditional requests, as the server's sync. */
export async function syncLiveFeeds(db: Db, settings: VulndbSettings, named: readonly string[], onProgress?: (line: string) => void): Promise<SyncOnce> {
  const ecosystems = named.length > 0 ? osvEcosystems(named) : await sbomEcosystems(db);
  if (named.length === 0)
    onProgress?.(ecosystems.length ? `ecosystems of the stored SBOMs: ${ecosystems.join(', ')}` : 'no stored SBOM names an ecosystem: KEV and EPSS only');
  const feeds = await syncFeeds(db, liveFeedUrls(settings.live, ecosystems), {
    maxBytes: settings.maxBytes,
    timeoutMs: settings.archive.maxMs,
    allowHttp: settings.allowHttp,
    archiveLimits: settings.archive,
    ...(onProgress ? { onProgress } : {}),
  });
  return { ecosystems, feeds };
}
