import type { CommandName } from '../operator/commands.js';

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
      return `imported ${(r.files as unknown[]).length} feed files: ${r.changedPackages} packages changed, ${r.kevAdded} CVEs new to KEV; re-matched ${m.sboms} SBOMs (${m.opened} new matches, ${m.resolved} resolved)`;
    }
  }
}
