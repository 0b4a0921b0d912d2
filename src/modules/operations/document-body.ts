import type { OperationResult } from './operation.js';

/**
 * The bytes of a document body: REST hands over the raw Buffer; MCP (and any caller that got
 * parsed JSON) hands over the value, which is serialised once. No body at all is an empty document,
 * which the verb refuses naming it.
 */
export function documentBytes(body: unknown): Buffer | string {
  if (Buffer.isBuffer(body) || typeof body === 'string') return body;
  if (body === undefined || body === null) return Buffer.alloc(0);
  return JSON.stringify(body);
}

/**
 * A stored document as a download: its own media type, `attachment` with a safe file name (built
 * from [A-Za-z0-9._-] only, so it needs no quoting rules), and `nosniff` so that a browser never
 * renders it as anything else. A name from outside brings its own `disposition`
 * (attachmentDisposition in src/modules/cases/attachment-file.ts).
 */
export function download(d: { mediaType: string; filename: string; sha256: string; body: Buffer; disposition?: string }): OperationResult {
  return {
    status: 200,
    contentType: d.mediaType,
    body: d.body,
    headers: {
      'content-disposition': d.disposition ?? `attachment; filename="${d.filename}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
      // RFC 9530: the SHA-256 of the bytes as pushed, so a client can check the copy it got.
      'repr-digest': `sha-256=:${Buffer.from(d.sha256, 'hex').toString('base64')}:`,
    },
  };
}
