import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkWebhookUrl, guardedLookup } from './url-guard.js';

export type AttemptResult = {
  /** HTTP status, or null when no response arrived (refused address, DNS, timeout, reset). */
  status: number | null;
  ok: boolean;
  latencyMs: number;
  /** Seconds from Retry-After (delta or HTTP date), when the receiver sent one. */
  retryAfterSeconds?: number;
  error?: string;
  /** At most `maxBodyBytes` of the response, for the delivery log. */
  responseSnippet?: string;
};

export type PostOptions = {
  allowPrivate: boolean;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxBodyBytes?: number;
  userAgent?: string;
};

export function parseRetryAfter(v: string | undefined, now = Date.now()): number | undefined {
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.ceil((t - now) / 1000));
}

/**
 * One delivery attempt. node:http rather than fetch: fetch ignores a custom lookup, and the
 * lookup is where the connected address is checked. Redirects are not followed (a 3xx is a failure);
 * only 2xx counts as success; the response body is read up to a small cap and then dropped.
 */
export function postWebhook(rawUrl: string, headers: Record<string, string>, body: string, o: PostOptions): Promise<AttemptResult> {
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'latencyMs'>): AttemptResult => ({ ...r, latencyMs: Math.round(performance.now() - started) });
  let url: URL;
  try {
    // IP literals are checked here (no lookup happens for them); names in the lookup below.
    url = checkWebhookUrl(rawUrl, o.allowPrivate);
  } catch (e) {
    return Promise.resolve(done({ status: null, ok: false, error: (e as Error).message }));
  }
  const maxBody = o.maxBodyBytes ?? 4096;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      resolve(done(r));
    };
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      lookup: guardedLookup(o.allowPrivate),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': o.userAgent ?? 'Cradle-Webhooks/1.0',
      },
      timeout: o.connectTimeoutMs ?? 5000,
    });
    const total = setTimeout(() => {
      req.destroy(new Error(`timed out after ${o.totalTimeoutMs ?? 15000} ms`));
    }, o.totalTimeoutMs ?? 15000);
    // The connect timeout ends once connected; a kept-alive socket is connected already (and
    // would collect one 'connect' listener per request if we waited for the event).
    req.on('socket', (s) => (s.connecting ? s.once('connect', () => req.setTimeout(0)) : req.setTimeout(0)));
    req.on('timeout', () => req.destroy(new Error('connection timed out')));
    req.on('error', (e) => finish({ status: null, ok: false, error: (e as Error).message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const status = res.statusCode ?? 0;
      const base = {
        status,
        ok: status >= 200 && status < 300,
        retryAfterSeconds: parseRetryAfter(res.headers['retry-after'] as string | undefined),
        ...(status >= 300 && status < 400 ? { error: `redirect to ${String(res.headers.location ?? '?').slice(0, 200)} not followed` } : {}),
      };
      res.on('data', (c: Buffer) => {
        if (size < maxBody) chunks.push(c.subarray(0, maxBody - size));
        size += c.length;
        if (size >= maxBody) {
          res.destroy();
          finish({ ...base, responseSnippet: Buffer.concat(chunks).toString('utf8') });
        }
      });
      res.on('end', () => finish({ ...base, responseSnippet: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => finish({ ...base, responseSnippet: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(body);
  });
}
