import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Db } from '../db/client.js';
import { AppError, ErrorCode, isAppError } from '../kernel/errors.js';
import { type CommandEnv, isCommandName, runCommand } from './commands.js';
import { socketPath } from './instance-lock.js';

/** One JSON object per line in each direction. */
export type OperatorRequest = { command: string; args: Record<string, unknown> };
export type OperatorResponse = { ok: true; result: unknown } | { ok: false; code: string; message: string };

const MAX_LINE = 1024 * 1024;

/**
 * The operator socket of a server on the embedded database: a Unix socket in DATA_DIR, mode 0600,
 * through which the CLI runs its commands inside the process that holds the database. Whoever can
 * reach it can already read the database files next to it, so it adds no privilege.
 */
export async function startOperatorServer(dataDir: string, db: Db, log: Logger, env: CommandEnv): Promise<Server> {
  const path = socketPath(dataDir);
  rmSync(path, { force: true }); // left behind by a crashed holder; we hold the lock now
  const server = createServer((sock) => handle(sock, db, log, env));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

function handle(sock: Socket, db: Db, log: Logger, env: CommandEnv): void {
  let buf = '';
  sock.setEncoding('utf8');
  sock.on('error', () => sock.destroy());
  sock.on('data', (chunk: string) => {
    buf += chunk;
    if (buf.length > MAX_LINE) return sock.destroy();
    const nl = buf.indexOf('\n');
    if (nl < 0) return;
    sock.pause();
    const line = buf.slice(0, nl);
    void answer(line, db, log, env).then((res) => sock.end(`${JSON.stringify(res)}\n`));
  });
}

async function answer(line: string, db: Db, log: Logger, env: CommandEnv): Promise<OperatorResponse> {
  try {
    const req = JSON.parse(line) as Partial<OperatorRequest>;
    if (!isCommandName(req.command)) throw new AppError(ErrorCode.VALIDATION, `unknown operator command`);
    const result = await runCommand(db, req.command, req.args ?? {}, env);
    // Only the command name: arguments may hold a password.
    log.info({ command: req.command }, 'operator command ran');
    return { ok: true, result };
  } catch (e) {
    if (isAppError(e)) return { ok: false, code: e.code, message: e.message };
    log.error({ err: e }, 'operator command failed');
    return { ok: false, code: ErrorCode.INTERNAL, message: 'the server failed to run the command; see its log' };
  }
}

export const closeServer = (s: Server): Promise<void> => new Promise((resolve) => s.close(() => resolve()));
