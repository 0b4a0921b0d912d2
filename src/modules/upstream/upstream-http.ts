import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkWebhookUrl, guardedLookup } from '../webhooks/url-guard.js';

/**
 * Every request Cradle makes to find or reach an upstream maintainer goes through here: the SSRF
 * guard of the webhooks (its static checks on each URL, and the lookup that refuses a name
 * resolving to a non-public address, unless `WEBHOOK_ALLOW_PRIVATE_NETWORKS`), a connect and a
 * whole-request timeout, a cap on the bytes read, and at most a few redirects, each checked again.
 */
export type UpstreamHttpOptions = {
  allowPrivate: boolean;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Whole request, redirects included. */
  timeoutMs?: number;
  /** The response body is read up to this many bytes; a longer one fails (`too_large`). */
  maxBytes?: number;
  /** GET only: redirects followed (each target checked by the guard). */
  maxRedirects?: number;
};

export type UpstreamResponse = { status: number; headers: IncomingHttpHeaders; body: string; url: string };

/** Why a request got no usable answer; `message` never carries a header value or the body sent. */
export class UpstreamHttpError extends Error {
  override name = 'UpstreamHttpError';
  readonly reason: 'refused' | 'network' | 'timeout' | 'too_large' | 'redirect';
  constructor(reason: 'refused' | 'network' | 'timeout' | 'too_large' | 'redirect', message: string) {
    super(message);
    this.reason = reason;
  }
}

export const USER_AGENT = 'Cradle-Upstream/1.0 (+coordinated vulnerability disclosure)';
const DEFAULT_MAX_BYTES = 256 * 1024;

function once(url: URL, o: UpstreamHttpOptions, deadline: number): Promise<UpstreamResponse> {
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise((resolve, reject) => {
    const remaining = Math.max(1, deadline - Date.now());
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: o.method ?? 'GET',
      lookup: guardedLookup(o.allowPrivate),
      headers: {
        'user-agent': USER_AGENT,
        ...o.headers,
        ...(o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}),
      },
    });
    const timer = setTimeout(() => req.destroy(new UpstreamHttpError('timeout', `no answer within ${o.timeoutMs ?? 10_000} ms`)), remaining);
    const fail = (e: Error) => {
      clearTimeout(timer);
      if (e instanceof UpstreamHttpError) return reject(e);
      const code = (e as { code?: string }).code;
      reject(new UpstreamHttpError(code === 'EWEBHOOK_FORBIDDEN_ADDRESS' ? 'refused' : 'network', e.message));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) {
          res.destroy();
          return fail(new UpstreamHttpError('too_large', `the answer is larger than ${maxBytes} bytes`));
        }
        chunks.push(c);
      });
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), url: url.toString() });
      });
    });
    req.end(o.body);
  });
}

/** One request; throws `UpstreamHttpError` when no answer arrives (any HTTP status is an answer). */
export async function upstreamRequest(rawUrl: string, o: UpstreamHttpOptions): Promise<UpstreamResponse> {
  const deadline = Date.now() + (o.timeoutMs ?? 10_000);
  let url = guard(rawUrl, o.allowPrivate);
  const redirects = o.method === 'POST' ? 0 : (o.maxRedirects ?? 3);
  for (let hop = 0; ; hop++) {
    const res = await once(url, o, deadline);
    const location = res.headers.location;
    if (res.status < 300 || res.status >= 400 || res.status === 304 || !location) return res;
    if (hop >= redirects) throw new UpstreamHttpError('redirect', `more than ${redirects} redirects`);
    const next = guard(new URL(location, url).toString(), o.allowPrivate);
    // A credential sent to one origin never follows a redirect to another.
    if (next.origin !== url.origin && o.headers?.authorization !== undefined) {
      const { authorization: _dropped, ...rest } = o.headers;
      o = { ...o, headers: rest };
    }
    url = next;
  }
}

function guard(raw: string, allowPrivate: boolean): URL {
  try {
    return checkWebhookUrl(raw, allowPrivate);
  } catch (e) {
    throw new UpstreamHttpError('refused', (e as Error).message.replace(/^url: /, ''));
  }
}
