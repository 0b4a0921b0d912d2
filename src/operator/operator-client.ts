import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, ErrorCode } from '../kernel/errors.js';
import type { OperatorRequest, OperatorResponse } from './operator-server.js';

function once(path: string, req: OperatorRequest): Promise<OperatorResponse> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(`${JSON.stringify(req)}\n`));
    sock.on('data', (c: string) => (buf += c));
    sock.on('error', reject);
    sock.on('end', () => {
      try {
        resolve(JSON.parse(buf) as OperatorResponse);
      } catch {
        reject(new Error('the server closed the operator socket without an answer'));
      }
    });
  });
}

/** True when a live process answers on the operator socket (its holder is not a crashed one). */
export function operatorSocketAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(path);
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/**
 * Sends a command to the server holding the embedded database. The holder may still be opening
 * the database (lock taken, socket not yet listening), so connection refusals are retried briefly.
 */
export async function sendOperatorCommand(path: string, req: OperatorRequest, waitMs = 2_000): Promise<unknown> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const res = await once(path, req);
      if (res.ok) return res.result;
      const code = (Object.values(ErrorCode) as string[]).includes(res.code) ? (res.code as ErrorCode) : ErrorCode.INTERNAL;
      throw new AppError(code, res.message);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if ((code === 'ECONNREFUSED' || code === 'ENOENT') && Date.now() < deadline) {
        await sleep(250);
        continue;
      }
      if (code === 'ECONNREFUSED' || code === 'ENOENT') {
        throw new AppError(
          ErrorCode.UNAVAILABLE,
          'another process holds the embedded database but does not answer on its operator socket; stop it, or wait until it has started, and retry',
        );
      }
      throw e;
    }
  }
}
