import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandArgs, CommandName } from '../operator/commands.js';
import type { BackupCli } from './backup-cli.js';
import { PLANS } from '../kernel/access.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `usage:
  cradle company create --slug <slug> --name <name> --plan <${PLANS.join('|')}>
  cradle company update --slug <slug> [--plan <plan>] [--ai-triage on|off]
  cradle company delete --slug <slug> [--now | --undo]
      suspends the company at once and purges it after COMPANY_DELETION_GRACE_DAYS (default 30);
      take its export first (GET /api/v1/export); --undo cancels within the grace period,
      --now purges at once (docs/backup.md "Deleting a company")
  cradle admin create --company <slug> --email <email> --password-stdin
  cradle admin reset-password --email <email> --password-stdin
  cradle admin set-role --email <email> --role <admin|psirt|viewer>
  cradle key suspend <keyId>
  cradle key unsuspend <keyId>
  cradle vulndb sync [--ecosystem <OSV ecosystem>]...
  cradle vulndb import <file or folder> [--force]
  cradle backup <file> [--encrypt-to <armored public key file>]
  cradle backup verify <file> [--decrypt-with <armored private key file>]
  cradle restore <file> [--decrypt-with <armored private key file>]
      backups never hold the operator key (SECRETS_KEY, SECRETS_KEY_FILE or DATA_DIR/secrets.key):
      keep a copy of it apart; restore writes only into an empty DATA_DIR or an empty database;
      a protected private key reads its passphrase from CRADLE_BACKUP_PASSPHRASE (docs/backup.md)
  cradle retention preview [--slug <slug>]
  cradle retention run [--slug <slug>]
options:
  --json   print the result as JSON on stdout
  --help   show this text`;

export type ParsedCli = { command: CommandName; args: CommandArgs; json: boolean; needsPassword: boolean };

const OPTIONS = {
  slug: { type: 'string' },
  name: { type: 'string' },
  plan: { type: 'string' },
  'ai-triage': { type: 'string' },
  company: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  force: { type: 'boolean' },
  now: { type: 'boolean' },
  undo: { type: 'boolean' },
  ecosystem: { type: 'string', multiple: true },
  'encrypt-to': { type: 'string' },
  'decrypt-with': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/** Parses argv (without node and script) into an operator command. Throws UsageError. */
export function parseCli(argv: string[]): ParsedCli | BackupCli | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const { values: v, positionals: p } = parsed;
  if (v.help || p.length === 0) return 'help';
  const json = v.json ?? false;
  const [noun, verb, ...rest] = p;
  const allow = (...names: (keyof typeof OPTIONS)[]) => {
    const extra = Object.keys(v).filter((k) => !['json', 'help', ...names].includes(k));
    if (extra.length > 0) throw new UsageError(`option --${extra[0]} does not apply to "${noun} ${verb}"`);
  };
  const noPositionals = () => {
    if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  };
  const need = (k: 'slug' | 'name' | 'plan' | 'company' | 'email' | 'role'): string => {
    const val = v[k];
    if (val === undefined) throw new UsageError(`--${k} is required for "${noun} ${verb}"`);
    return val;
  };

  if (noun === 'backup' || noun === 'restore') {
    const verify = noun === 'backup' && verb === 'verify';
    const files = verify ? rest : [verb, ...rest].filter((x) => x !== undefined);
    if (files.length !== 1 || !files[0]) throw new UsageError(`"${noun}${verify ? ' verify' : ''}" takes exactly one backup file`);
    if (noun === 'backup' && !verify) {
      allow('encrypt-to');
      return { local: 'backup', file: files[0], keyFile: v['encrypt-to'], json };
    }
    allow('decrypt-with');
    return { local: verify ? 'backup.verify' : 'restore', file: files[0], keyFile: v['decrypt-with'], json };
  }
  switch (`${noun} ${verb}`) {
    case 'company create':
      allow('slug', 'name', 'plan');
      noPositionals();
      return { command: 'company.create', args: { slug: need('slug'), name: need('name'), plan: need('plan') }, json, needsPassword: false };
    case 'company update': {
      allow('slug', 'plan', 'ai-triage');
      noPositionals();
      const triage = v['ai-triage'];
      if (triage !== undefined && triage !== 'on' && triage !== 'off') throw new UsageError('--ai-triage must be on or off');
      if (v.plan === undefined && triage === undefined) throw new UsageError('give --plan and/or --ai-triage to change');
      return {
        command: 'company.update',
        args: { slug: need('slug'), ...(v.plan !== undefined ? { plan: v.plan } : {}), ...(triage ? { aiTriage: triage === 'on' } : {}) },
        json,
        needsPassword: false,
      };
    }
    case 'company delete':
      allow('slug', 'now', 'undo');
      noPositionals();
      if (v.now && v.undo) throw new UsageError('give --now or --undo, not both');
      return { command: 'company.delete', args: { slug: need('slug'), now: v.now ?? false, undo: v.undo ?? false }, json, needsPassword: false };
    case 'admin create':
      allow('company', 'email', 'password-stdin');
      noPositionals();
      if (!v['password-stdin']) throw new UsageError('--password-stdin is required: pass the password as the first line of stdin');
      return { command: 'admin.create', args: { company: need('company'), email: need('email') }, json, needsPassword: true };
    case 'admin reset-password':
      allow('email', 'password-stdin');
      noPositionals();
      if (!v['password-stdin']) throw new UsageError('--password-stdin is required: pass the new password as the first line of stdin');
      return { command: 'admin.reset-password', args: { email: need('email') }, json, needsPassword: true };
    case 'admin set-role':
      allow('email', 'role');
      noPositionals();
      return { command: 'admin.set-role', args: { email: need('email'), role: need('role') }, json, needsPassword: false };
    case 'key suspend':
    case 'key unsuspend': {
      allow();
      if (rest.length !== 1 || !rest[0]) throw new UsageError(`"key ${verb}" takes exactly one key id`);
      return { command: verb === 'suspend' ? 'key.suspend' : 'key.unsuspend', args: { keyId: rest[0] }, json, needsPassword: false };
    }
    case 'vulndb import': {
      allow('force');
      if (rest.length !== 1 || !rest[0]) throw new UsageError('"vulndb import" takes exactly one file or folder');
      // Resolved here: a running server that runs the command has its own working directory.
      return { command: 'vulndb.import', args: { path: resolve(rest[0]), force: v.force ?? false }, json, needsPassword: false };
    }
    case 'vulndb sync':
      allow('ecosystem');
      noPositionals();
      return { command: 'vulndb.sync', args: { ecosystems: v.ecosystem ?? [] }, json, needsPassword: false };
    case 'retention preview':
    case 'retention run':
      allow('slug');
      noPositionals();
      return {
        command: verb === 'run' ? 'retention.run' : 'retention.preview',
        args: v.slug !== undefined ? { slug: v.slug } : {},
        json,
        needsPassword: false,
      };
    default:
      throw new UsageError(`unknown command "${p.join(' ')}"`);
  }
}
