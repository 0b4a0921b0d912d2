import { spawn } from 'node:child_process';
import { BackupError } from './backup-format.js';

/**
 * pg_dump and pg_restore, the PostgreSQL client programs (Debian: postgresql-client-<major>). The
 * connection travels in libpq's environment variables, never on the command line, so that the
 * password does not appear in the process list.
 */
export function libpqEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const u = new URL(databaseUrl);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('PG')) delete env[k];
  if (u.hostname) env.PGHOST = decodeURIComponent(u.hostname.replace(/^\[|\]$/g, ''));
  if (u.port) env.PGPORT = u.port;
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  const db = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (db) env.PGDATABASE = db;
  const host = u.searchParams.get('host');
  if (host) env.PGHOST = host;
  const ssl = u.searchParams.get('sslmode');
  if (ssl) env.PGSSLMODE = ssl;
  return env;
}

export type ToolRun = { code: number | null; stdout: string; stderr: string };

/** Runs a PostgreSQL client program; a missing program is a BackupError saying what to install. */
export function runPgTool(program: 'pg_dump' | 'pg_restore', args: string[], env: NodeJS.ProcessEnv): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env[program === 'pg_dump' ? 'CRADLE_PG_DUMP' : 'CRADLE_PG_RESTORE'] ?? program, args, {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-8_000)));
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new BackupError(
              `${program} is not installed: install the PostgreSQL client of the server's major version or newer (Debian: apt-get install postgresql-client)`,
            )
          : e,
      ),
    );
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The major version of an installed client program (`pg_dump (PostgreSQL) 15.20 ...` gives 15). */
export async function clientMajor(program: 'pg_dump' | 'pg_restore'): Promise<number> {
  const r = await runPgTool(program, ['--version'], process.env);
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(r.stdout);
  if (!m) throw new BackupError(`cannot read the version of ${program}: ${r.stdout.trim() || r.stderr.trim()}`);
  return Number(m[1]);
}

/** The last lines of a tool's error output, without connection details. */
export const toolError = (r: ToolRun): string =>
  r.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-3)
    .join('; ');
