import type { FeedSyncResult } from '../modules/known-vulns/feed-sync.js';
import type { RetentionRun } from '../modules/retention/retention.schemas.js';
import type { FileReport } from '../modules/vulndb/import-feeds.js';
import type { CommandName } from '../operator/commands.js';

/** One line per file: what was imported from it, or why it was skipped or failed. */
function fileLine(f: FileReport): string {
  if (f.skipped) return `  skipped ${f.path}: ${f.skipped}`;
  if (f.failed) return `  FAILED  ${f.path}: ${f.failed}`;
  if (f.unchanged) return `  same    ${f.path}: unchanged since the last import`;
  const extra = [f.version ? `version ${f.version}` : '', f.withdrawn ? `${f.withdrawn} withdrawn` : '', f.rejected ? `${f.rejected} rejected` : ''].filter(
    Boolean,
  );
  return `  read    ${f.path}: ${f.read} read, ${f.applied} new or changed${extra.length ? `, ${extra.join(', ')}` : ''}`;
}

const feedLine = (f: FeedSyncResult): string =>
  `  ${f.outcome === 'failed' ? 'FAILED ' : f.outcome === 'imported' ? 'fetched' : 'same   '} ${f.url}${f.error ? `: ${f.error}` : f.outcome === 'not-modified' ? ': not modified since the last sync' : ''}`;

/** A command whose result names a file or feed that failed: the CLI exits non-zero after printing it. */
export function partlyFailed(command: CommandName, result: unknown): boolean {
  const r = result as Record<string, unknown>;
  if (command === 'vulndb.import') return (r.files as FileReport[]).some((f) => f.failed);
  if (command === 'vulndb.sync') return (r.feeds as FeedSyncResult[]).some((f) => f.outcome === 'failed');
  return false;
}

const RULE_NAMES = { reporter_data: 'researcher data', rejected_bodies: 'rejected report text', access_records: 'access records' } as const;

/** One line per company and rule: counts and dates only. */
function retentionLines(applied: boolean, runs: RetentionRun[]): string {
  const head = `${applied ? 'applied' : 'would apply'} retention for ${runs.length} compan${runs.length === 1 ? 'y' : 'ies'}`;
  const lines = runs.flatMap((run) =>
    run.rules.map(
      (o) =>
        `  ${run.companyId} ${RULE_NAMES[o.rule]} (${o.days === null ? 'kept' : `${o.days} days`}): ${o.count}${o.oldest ? ` (oldest ${o.oldest.slice(0, 10)})` : ''}, held ${o.held}, kept by the CRA floor ${o.keptByCraFloor}`,
    ),
  );
  return [head, ...lines].join('\n');
}

/** The one human-readable line printed for a successful command. */
export function describe(command: CommandName, result: unknown): string {
  const r = result as Record<string, unknown>;
  switch (command) {
    case 'company.create':
      return `created company ${r.slug} (${r.name}), plan ${r.plan}, id ${r.id}`;
    case 'company.update':
      return `updated company ${r.slug}: plan ${r.plan}, AI triage ${r.aiTriage ? 'on' : 'off'}`;
    case 'admin.create':
      return `created administrator ${r.email}, id ${r.id}`;
    case 'admin.reset-password':
      return `set a new password for ${r.email}; ended ${r.sessionsEnded} session(s)`;
    case 'admin.set-role':
      return r.from === r.to ? `${r.email} already has the role ${r.to}` : `${r.email} is now ${r.to} (was ${r.from}); ended ${r.sessionsEnded} session(s)`;
    case 'key.suspend':
      return r.changed ? `suspended key ${r.id}` : `key ${r.id} was already suspended`;
    case 'key.unsuspend':
      return r.changed ? `lifted the suspension of key ${r.id}` : `key ${r.id} was not suspended`;
    case 'vulndb.import': {
      const m = r.rematch as { sboms: number; opened: number; resolved: number };
      const files = r.files as FileReport[];
      const count = (p: (f: FileReport) => unknown) => files.filter(p).length;
      return [
        `imported ${count((f) => !f.skipped && !f.failed)} feed files (${count((f) => f.skipped)} skipped, ${count((f) => f.failed)} failed): ${r.changedPackages} packages changed, ${r.kevAdded} CVEs new to KEV; re-matched ${m.sboms} SBOMs (${m.opened} new matches, ${m.resolved} resolved)`,
        ...files.map(fileLine),
      ].join('\n');
    }
    case 'company.delete': {
      if ('cancelled' in r)
        return r.cancelled ? `cancelled the deletion of company ${r.slug}: it is served again` : `company ${r.slug} had no pending deletion`;
      const purged = r.purged as { rowsDeleted: number; tables: number } | null;
      if (purged) return `purged company ${r.slug}: ${purged.rowsDeleted} rows removed from ${purged.tables + 1} tables`;
      return `company ${r.slug} is suspended and will be purged at ${r.dueAt}; take its export now if you have not (GET /api/v1/export with an administrator's key); undo with: cradle company delete --slug ${r.slug} --undo`;
    }
    case 'backup.create':
      return `wrote ${r.path} (${r.bytes} bytes)`;
    case 'retention.preview':
    case 'retention.run':
      return retentionLines(command === 'retention.run', result as RetentionRun[]);
    case 'vulndb.sync': {
      const feeds = r.feeds as FeedSyncResult[];
      const ecosystems = r.ecosystems as string[];
      return [
        `synchronised ${feeds.length} feeds (OSV ${ecosystems.length ? ecosystems.join(', ') : 'none'}, KEV, EPSS): ${feeds.filter((f) => f.outcome === 'failed').length} failed`,
        ...feeds.map(feedLine),
      ].join('\n');
    }
  }
}
