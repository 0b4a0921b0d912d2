import type { Db } from '../../db/client.js';
import { type ImportOptions, type ImportResult, importFeeds } from '../vulndb/import-feeds.js';
import { announceKevAdditions, type RematchResult, rematchAfterFeed } from './rematch.js';

export type RefreshResult = ImportResult & { rematch: RematchResult; kevAnnouncements: number };

/** Imports feed files, then re-matches what changed and announces new KEV entries (`cradle vulndb import`, feed sync). */
export async function refreshVulndb(db: Db, path: string, opts: ImportOptions = {}): Promise<RefreshResult> {
  const imported = await importFeeds(db, path, opts);
  const now = new Date();
  const rematch = await rematchAfterFeed(db, imported.changedPackages, now);
  opts.onProgress?.(`re-matched ${rematch.sboms} SBOMs: ${rematch.opened} new matches, ${rematch.resolved} resolved`);
  const kevAnnouncements = await announceKevAdditions(db, imported.kevAdded, imported.kevRemoved, now);
  if (kevAnnouncements > 0) opts.onProgress?.(`${kevAnnouncements} products told of vulnerabilities new to KEV`);
  return { ...imported, rematch, kevAnnouncements };
}
