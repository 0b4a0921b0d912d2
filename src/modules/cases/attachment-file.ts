/**
 * The pure rules of a case attachment (docs/coordination.md "Attachments"): its limits, the name it
 * is stored and offered under, and the media type it is served as. No database here, so each rule
 * has a unit test of its own.
 */

/** Largest file (bytes). */
export const ATTACHMENT_MAX_BYTES = 2 * 1024 * 1024;
/** Files one message may carry. */
export const ATTACHMENTS_PER_MESSAGE = 5;
/** All files of one case together (bytes). */
export const CASE_ATTACHMENTS_MAX_BYTES = 25 * 1024 * 1024;
/** Longest stored name (characters, the extension kept). */
export const ATTACHMENT_NAME_MAX = 120;

/**
 * The JSON body limit of the operations that carry attachments as base64: every file at its
 * largest (4 characters per 3 bytes), the message text, and room for the JSON around them.
 */
export const ATTACHMENT_JSON_BODY_LIMIT = Math.ceil((ATTACHMENTS_PER_MESSAGE * ATTACHMENT_MAX_BYTES * 4) / 3) + 256 * 1024;

/**
 * Every media type an attachment is served as. None of them is active content a browser would run
 * (no HTML, no SVG, no XML): text that is not one of the binary formats below is `text/plain`, and
 * anything else `application/octet-stream`. Always with `Content-Disposition: attachment` and
 * `nosniff`, so even these are saved, never shown in the page.
 */
export const ATTACHMENT_MEDIA_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'application/zip',
  'application/gzip',
  'text/plain',
  'application/octet-stream',
] as const;
export type AttachmentMediaType = (typeof ATTACHMENT_MEDIA_TYPES)[number];

const MAGIC: readonly [AttachmentMediaType, number[]][] = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/gzip', [0x1f, 0x8b]],
];

/** C0 and C1 control characters and DEL. */
const isControl = (c: string): boolean => {
  const n = c.charCodeAt(0);
  return n < 0x20 || (n >= 0x7f && n <= 0x9f);
};
const TEXT_CONTROLS = new Set(['\t', '\n', '\r', '\f']);
/** Line and paragraph separators and the bidirectional marks and overrides that can disguise an extension. */
const INVISIBLE = new Set([0x2028, 0x2029, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);

/** What the bytes are, from their first bytes; the sender's declared type is never trusted. */
export function sniffMediaType(bytes: Buffer): AttachmentMediaType {
  for (const [type, magic] of MAGIC) if (bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b)) return type;
  if (bytes.includes(0)) return 'application/octet-stream';
  // Text is valid UTF-8 (fatal decoding) without control characters other than tab, CR, LF and FF.
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return [...text].some((c) => isControl(c) && !TEXT_CONTROLS.has(c)) ? 'application/octet-stream' : 'text/plain';
  } catch {
    return 'application/octet-stream';
  }
}

/**
 * The name a file is stored and offered under: the last path segment of what was sent, in NFC,
 * without control characters, quotes, slashes or the characters Windows refuses, blanks folded,
 * no leading dots (no hidden files), at most ATTACHMENT_NAME_MAX characters with the extension
 * kept. Nothing usable left: `attachment`.
 */
export function sanitiseFilename(raw: string): string {
  const last = raw.normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = last
    .split('')
    .filter((c) => !isControl(c) && !INVISIBLE.has(c.charCodeAt(0)) && !'"*:<>?|'.includes(c))
    .join('')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  if (cleaned === '') return 'attachment';
  const chars = [...cleaned];
  if (chars.length <= ATTACHMENT_NAME_MAX) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const ext = dot > 0 ? [...cleaned.slice(dot)] : [];
  const keepExt = ext.length > 0 && ext.length <= 16 ? ext : [];
  return (
    chars
      .slice(0, ATTACHMENT_NAME_MAX - keepExt.length)
      .join('')
      .trimEnd() + keepExt.join('')
  );
}

/**
 * `Content-Disposition: attachment` with the stored name: an ASCII fallback in `filename` (every
 * other character an underscore, so it needs no escaping) and the exact name in `filename*` (RFC
 * 6266 and RFC 8187, UTF-8 percent-encoded).
 */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^A-Za-z0-9 ._()+-]/g, '_') || 'attachment';
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
