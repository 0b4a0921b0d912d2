#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { isAppError } from '../kernel/errors.js';
import { runCommand } from '../operator/commands.js';
import { claimDataDir } from '../operator/claim.js';
import { LockHeldError } from '../operator/instance-lock.js';
import { sendOperatorCommand } from '../operator/operator-client.js';
import { parseCli, type ParsedCli, USAGE, UsageError } from './args.js';
import { describe } from './describe.js';

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

/**
 * On PostgreSQL the CLI opens the database itself. On the embedded database it opens it only when
 * no server holds it (taking the same lock); otherwise it asks the running server to run the command.
 */
async function execute(cli: ParsedCli): Promise<unknown> {
  const config = loadConfig();
  if (cli.needsPassword) cli.args.password = await firstLineOfStdin();
  if (config.databaseUrl) {
    const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 2 });
    try {
      await database.migrate();
      return await runCommand(database.db, cli.command, cli.args, progress);
    } finally {
      await database.close();
    }
  }
  const claim = await claimDataDir(config.dataDir);
  if (claim.kind === 'server') return sendOperatorCommand(claim.socket, { command: cli.command, args: cli.args });
  try {
    const database = await openDatabase({ dataDir: config.dataDir });
    try {
      await database.migrate();
      return await runCommand(database.db, cli.command, cli.args, progress);
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
    const result = await execute(cli);
    process.stdout.write(cli.json ? `${JSON.stringify(result)}\n` : `${describe(cli.command, result)}\n`);
    return 0;
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
