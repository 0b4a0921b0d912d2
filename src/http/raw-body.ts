import type { FastifyRequest } from 'fastify';
import fastify from 'fastify';

const { FST_ERR_CTP_BODY_TOO_LARGE, FST_ERR_CTP_INVALID_CONTENT_LENGTH } = fastify.errorCodes;

/**
 * A document route's body as one Buffer (ADR 0026). Fastify's own `parseAs: 'buffer'` keeps the
 * chunks and concatenates them at the end, so a 45 MiB body is twice in memory for a moment; with
 * a Content-Length the bytes are copied into one buffer of that size as they arrive instead. The
 * buffer owns its ArrayBuffer, so the verb can move it to a worker without a copy. Chunked bodies
 * (no length) are gathered as before. Refusals are Fastify's own: 413 past `limit`, 400 when the
 * bytes that came differ from the declared length.
 */
export function readRawBody(req: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, done: (err: Error | null, body?: Buffer) => void): void {
  const declared = req.headers['content-length'] === undefined ? NaN : Number(req.headers['content-length']);
  if (declared > limit) return done(new FST_ERR_CTP_BODY_TOO_LARGE());
  const known = Number.isInteger(declared) && declared >= 0;
  const into = known ? Buffer.allocUnsafeSlow(declared) : undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  function onData(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (received + bytes.length > limit) return (stop(), done(new FST_ERR_CTP_BODY_TOO_LARGE()));
    if (into) {
      if (received + bytes.length > into.length) return (stop(), done(new FST_ERR_CTP_INVALID_CONTENT_LENGTH()));
      bytes.copy(into, received);
    } else chunks.push(bytes);
    received += bytes.length;
  }
  function onEnd(err?: Error & { statusCode?: number }): void {
    stop();
    if (err) {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      return done(err);
    }
    if (into && received !== into.length) return done(new FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    done(null, into ?? Buffer.concat(chunks, received));
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}
