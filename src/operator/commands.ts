import type { VulndbSettings } from '../config.js';
import type { Db } from '../db/client.js';
import { operatorContext } from '../kernel/context.js';
import { validation } from '../kernel/errors.js';
import { createCompany } from '../modules/companies/create-company.js';
import { updateCompany } from '../modules/companies/update-company.js';
import { setKeySuspended } from '../modules/keys/suspend-key.js';
import { createAdmin } from '../modules/users/create-admin.js';
import { findUserByEmail, resetPassword } from '../modules/users/reset-password.js';
import { changeMemberRole } from '../modules/team/members.js';
import { notFound } from '../kernel/errors.js';
import { refreshVulndb } from '../modules/known-vulns/refresh-vulndb.js';
import { retentionForCompanies } from '../modules/retention/retention-run.js';
import { syncLiveFeeds } from '../modules/known-vulns/live-feeds.js';
import { takeBackup } from '../modules/backup/take-backup.js';
import { cancelCompanyDeletion, requestCompanyDeletion } from '../modules/companies/delete-company.js';

/**
 * Operator commands: the verbs behind the `cradle` CLI. The CLI runs them in-process, or, when a
 * running server holds the embedded database, sends them over the operator socket and the server
 * runs them here. Arguments are plain JSON either way.
 */
export type CommandArgs = Record<string, unknown>;

const str = (a: CommandArgs, k: string): string => {
  const v = a[k];
  if (typeof v !== 'string') throw validation(`--${k} is required`);
  return v;
};

/** Where a command may report progress (the terminal when the CLI runs it in-process). */
export type Progress = (line: string) => void;
/** What a command runs with besides its arguments: the settings of the process that runs it. */
export type CommandEnv = {
  vulndb: VulndbSettings;
  say?: Progress;
  /** Days between `company delete` and the purge (COMPANY_DELETION_GRACE_DAYS of the process that runs it). */
  graceDays?: number | undefined;
  /** The embedded database's image, in the process that holds it (`backup.create`). */
  image?: (() => Promise<Blob>) | undefined;
};

export const COMMANDS = {
  'company.create': async (db: Db, a: CommandArgs) => {
    const c = await createCompany(db, operatorContext(), { slug: a.slug, name: a.name, plan: a.plan });
    return { id: c.id, slug: c.slug, name: c.name, plan: c.plan, aiTriage: c.aiTriage, createdAt: c.createdAt.toISOString() };
  },
  'company.update': async (db: Db, a: CommandArgs) => {
    const c = await updateCompany(db, operatorContext(), str(a, 'slug'), { plan: a.plan, aiTriage: a.aiTriage });
    return { id: c.id, slug: c.slug, name: c.name, plan: c.plan, aiTriage: c.aiTriage, updatedAt: c.updatedAt.toISOString() };
  },
  'admin.create': async (db: Db, a: CommandArgs) => {
    const u = await createAdmin(db, operatorContext(), str(a, 'company'), { email: a.email, password: a.password });
    return { id: u.id, companyId: u.companyId, email: u.email, role: u.role, createdAt: u.createdAt.toISOString() };
  },
  'admin.reset-password': (db: Db, a: CommandArgs) => resetPassword(db, operatorContext(), { email: a.email, password: a.password }),
  'admin.set-role': async (db: Db, a: CommandArgs) => {
    const u = await findUserByEmail(db, str(a, 'email'));
    if (!u) throw notFound(`user with e-mail "${str(a, 'email')}"`);
    return changeMemberRole(db, operatorContext(), u.companyId, u.id, { role: a.role });
  },
  'key.suspend': (db: Db, a: CommandArgs) => setKeySuspended(db, operatorContext(), str(a, 'keyId'), true),
  'key.unsuspend': (db: Db, a: CommandArgs) => setKeySuspended(db, operatorContext(), str(a, 'keyId'), false),
  'vulndb.import': async (db: Db, a: CommandArgs, { vulndb, say }: CommandEnv) => {
    const r = await refreshVulndb(db, str(a, 'path'), { force: a.force === true, archiveLimits: vulndb.archive, ...(say ? { onProgress: say } : {}) });
    return {
      files: r.files,
      changedPackages: r.changedPackages.size,
      kevAdded: r.kevAdded.length,
      rematch: r.rematch,
      kevAnnouncements: r.kevAnnouncements,
    };
  },
  'vulndb.sync': (db: Db, a: CommandArgs, { vulndb, say }: CommandEnv) =>
    syncLiveFeeds(db, vulndb, Array.isArray(a.ecosystems) ? a.ecosystems.map(String) : [], say),
  'company.delete': (db: Db, a: CommandArgs, { graceDays }: CommandEnv) =>
    a.undo === true
      ? cancelCompanyDeletion(db, operatorContext(), str(a, 'slug'))
      : requestCompanyDeletion(db, operatorContext(), str(a, 'slug'), { graceDays: graceDays ?? 30, now: a.now === true }),
  // Run by whoever holds the embedded database (the server, through its socket, or the CLI under
  // the lock): the image is taken inside that process. PostgreSQL backups never come here.
  'backup.create': (db: Db, a: CommandArgs, { image }: CommandEnv) => {
    if (!image) throw validation('this process does not hold an embedded database');
    return takeBackup({ kind: 'pglite', db, image }, { path: str(a, 'path'), encryptTo: typeof a.encryptTo === 'string' ? a.encryptTo : undefined });
  },
  'retention.preview': (db: Db, a: CommandArgs) =>
    retentionForCompanies(db, operatorContext(), { apply: false, slug: typeof a.slug === 'string' ? a.slug : undefined }),
  'retention.run': (db: Db, a: CommandArgs) =>
    retentionForCompanies(db, operatorContext(), { apply: true, slug: typeof a.slug === 'string' ? a.slug : undefined }),
} as const;

export type CommandName = keyof typeof COMMANDS;
export const isCommandName = (s: unknown): s is CommandName => typeof s === 'string' && Object.hasOwn(COMMANDS, s);

export function runCommand(db: Db, name: CommandName, args: CommandArgs, env: CommandEnv): Promise<unknown> {
  return COMMANDS[name](db, args, env);
}
