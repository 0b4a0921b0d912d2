import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';

export type LlmCall = { path: string; headers: IncomingHttpHeaders; body: { model: string; messages: { role: string; content: string }[] } };

/**
 * A local OpenAI-compatible chat-completions endpoint (a real HTTP peer): answers
 * `POST /v1/chat/completions` with the content the test sets, or hangs, or fails.
 */
export async function startFakeLlm() {
  let answer: { content?: string; status?: number; hang?: boolean; raw?: string } = { content: '{}' };
  const calls: LlmCall[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      calls.push({ path: req.url, headers: req.headers, body: JSON.parse(body) as LlmCall['body'] });
      if (answer.hang) return;
      const payload =
        answer.raw ??
        JSON.stringify({
          id: 'cmpl-1',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: answer.content ?? '' }, finish_reason: 'stop' }],
        });
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(payload);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    answer: (a: typeof answer) => (answer = a),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
