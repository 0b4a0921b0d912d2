import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { isAppError } from '../kernel/errors.js';
import { claimDataDir } from '../operator/claim.js';
import { LockHeldError } from '../operator/instance-lock.js';
import { sendOperatorCommand } from '../operator/operator-client.js';
import { parseCli, type ParsedCli, USAGE, UsageError } from './args.js';
import { describe, partlyFailed } from './describe.js';

// The database client and the command table (most of the application) are imported only by a
// command that opens the database itself: usage errors, a missing database and commands handed to a
// running server answer without loading them (each spawned `cradle` paid for them, ADR 0022).
const local = () => Promise.all([import('../db/client.js'), import('../operator/commands.js')]);

/** Reads the first line of stdin (the password), without its line ending. */
async function firstLineOfStdin(): Promise<string> {
  let data = '';
  for await (const chunk of process.stdin) {
    data += String(chunk);
    const nl = data.indexOf('\n');
    if (nl >= 0) {
      process.stdin.destroy();
      return data.slice(0, nl).replace(/\r$/, '');
    }
  }
  return data.replace(/\r$/, '');
}

/** Progress of long commands (a feed import) goes to stderr, so `--json` output stays clean. */
const progress = (line: string) => void process.stderr.write(`${line}\n`);

/** The commands that set up an instance: they may create the embedded database (and say so). */
const SETS_UP: ReadonlySet<ParsedCli['command']> = new Set(['company.create', 'admin.create']);

/**
 * Whether DATA_DIR holds an embedded database: a mistyped or missing DATA_DIR must not become a new,
 * empty database that a command then reports success into. Checked before anything is written.
 */
function embeddedDatabaseIn(dataDir: string): boolean {
  return existsSync(join(dataDir, 'pgdata', 'PG_VERSION'));
}

/**
 * On PostgreSQL the CLI opens the database itself. On the embedded database it opens it only when
 * no server holds it (taking the same lock); otherwise it asks the running server to run the command.
 */
async function execute(cli: ParsedCli): Promise<unknown> {
  const config = loadConfig();
  const env = { vulndb: config.vulndb, say: progress, graceDays: config.companyDeletionGraceDays };
  if (cli.needsPassword) cli.args.password = await firstLineOfStdin();
  if (config.databaseUrl) {
    const [{ openDatabase }, { runCommand }] = await local();
    const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 2 });
    try {
      await database.migrate();
      return await runCommand(database.db, cli.command, cli.args, env);
    } finally {
      await database.close();
    }
  }
  const folder = resolve(config.dataDir);
  const exists = embeddedDatabaseIn(folder);
  if (!exists && !SETS_UP.has(cli.command))
    throw new UsageError(`there is no Cradle database in ${folder} (DATA_DIR): set DATA_DIR to the server's folder; nothing was created`);
  const claim = await claimDataDir(config.dataDir);
  if (claim.kind === 'server') return sendOperatorCommand(claim.socket, { command: cli.command, args: cli.args });
  try {
    const [{ openDatabase }, { runCommand }] = await local();
    const database = await openDatabase({ dataDir: config.dataDir });
    if (!exists) progress(`created a new embedded database in ${folder} (DATA_DIR)`);
    try {
      await database.migrate();
      return await runCommand(database.db, cli.command, cli.args, env);
    } finally {
      await database.close();
    }
  } finally {
    await claim.release();
  }
}

async function main(): Promise<number> {
  let cli;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`cradle: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (cli === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    if ('local' in cli) {
      const { describeBackup, runBackupCli } = await import('./backup-cli.js');
      const result = await runBackupCli(cli);
      process.stdout.write(cli.json ? `${JSON.stringify(result)}\n` : `${describeBackup(cli, result)}\n`);
      return 0;
    }
    const result = await execute(cli);
    process.stdout.write(cli.json ? `${JSON.stringify(result)}\n` : `${describe(cli.command, result)}\n`);
    // A feed file or feed that failed (named in the summary) fails the command; the others were imported.
    return partlyFailed(cli.command, result) ? 1 : 0;
  } catch (e) {
    if (isAppError(e) || e instanceof ConfigError || e instanceof UsageError || e instanceof LockHeldError) {
      process.stderr.write(`cradle: ${e.message}\n`);
    } else {
      process.stderr.write(`cradle: unexpected error: ${(e as Error).message ?? String(e)}\n`);
    }
    return 1;
  }
}

process.exitCode = await main();
