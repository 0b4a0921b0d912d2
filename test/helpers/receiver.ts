import { beforeEach } from 'node:test';
import { createTestDatabase, type TestDatabase } from './db.js';
import { suiteSetUp } from './suite.js';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export type Received = { path: string; headers: IncomingHttpHeaders; body: string; at: number };
export type Reply = { status: number; headers?: Record<string, string>; body?: string; hang?: boolean };

/** A local webhook receiver whose answer per request is programmable; records what it saw. */
export async function startReceiver(): Promise<{
  url: (path?: string) => string;
  seen: Received[];
  respond: (f: (r: Received) => Reply) => void;
  close(): Promise<void>;
}> {
  let answer: (r: Received) => Reply = () => ({ status: 204 });
  const seen: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      seen.push(r);
      const a = answer(r);
      if (a.hang) return;
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    seen,
    respond: (f) => (answer = f),
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/**
 * A suite's fresh database and webhook receiver: made before the suite, closed after it, and the
 * receiver emptied and answering 204 before each test; `ready` resolves to them once made (node:test
 * runs a file's top-level hooks in no promised order against each other).
 */
export function receiverSuite(): { ready: Promise<{ db: TestDatabase; rx: Awaited<ReturnType<typeof startReceiver>> }> } {
  let rx: Awaited<ReturnType<typeof startReceiver>> | undefined;
  const ready = suiteSetUp(async (onClose) => {
    const db = await createTestDatabase();
    onClose(() => db.drop());
    rx = await startReceiver();
    onClose(() => rx?.close());
    return { db, rx };
  });
  beforeEach(() => {
    if (!rx) return;
    rx.seen.length = 0;
    rx.respond(() => ({ status: 204 }));
  });
  return { ready };
}
