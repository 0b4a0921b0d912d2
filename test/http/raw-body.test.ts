// A document route's body read into one buffer of its declared length (src/http/raw-body.ts, ADR 0026).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { readRawBody } from '../../src/http/raw-body.js';

/** Sends `chunks` as a body declared `length` long (none: chunked) through the reader with `limit`. */
function read(
  chunks: string[],
  length: number | undefined,
  limit = 100,
): Promise<{ err: (Error & { statusCode?: number; code?: string }) | null; body?: Buffer }> {
  const headers = length === undefined ? {} : { 'content-length': String(length) };
  const payload = new PassThrough();
  const answer = new Promise<{ err: Error | null; body?: Buffer }>((resolve) =>
    readRawBody({ headers } as FastifyRequest, payload, limit, (err, body) => resolve(body === undefined ? { err } : { err, body })),
  );
  for (const c of chunks) payload.write(c);
  payload.end();
  return answer;
}

describe('a raw document body', () => {
  it('arrives whole in one buffer of its declared length that owns its memory', async () => {
    const { err, body } = await read(['{"a":', '"b"', '}'], 9);
    assert.equal(err, null);
    assert.equal(body?.toString(), '{"a":"b"}');
    assert.equal(body?.byteOffset, 0);
    assert.equal(body?.buffer.byteLength, 9, 'transferable to a worker without moving other bytes');
  });

  it('is gathered without a declared length (chunked), within the limit', async () => {
    const { err, body } = await read(['[1,', '2]'], undefined);
    assert.equal(err, null);
    assert.equal(body?.toString(), '[1,2]');
  });

  it('refuses a declared or sent length past the limit with 413', async () => {
    for (const [chunks, length] of [
      [['x'], 101],
      [['x'.repeat(60), 'x'.repeat(60)], undefined],
    ] as const) {
      const { err, body } = await read([...chunks], length);
      assert.equal(err?.code, 'FST_ERR_CTP_BODY_TOO_LARGE');
      assert.equal(err?.statusCode, 413);
      assert.equal(body, undefined);
    }
  });

  it('refuses bytes that differ from the declared length with 400', async () => {
    for (const [chunks, length] of [
      [['{"a":1}'], 10],
      [['{"a":1}', '  '], 7],
    ] as const) {
      const { err, body } = await read([...chunks], length);
      assert.equal(err?.code, 'FST_ERR_CTP_INVALID_CONTENT_LENGTH');
      assert.equal(err?.statusCode, 400);
      assert.equal(body, undefined);
    }
  });
});
