/**
 * Recognises an ASCII-armoured OpenPGP public key block (RFC 9580 section 6.2): the BEGIN line,
 * optional armour headers, a blank line, radix-64 data, an optional `=XXXX` checksum, the END line.
 * A recogniser, not a parser: it keeps pasted junk out and gives a clear message, nothing more.
 */
const BEGIN = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const END = '-----END PGP PUBLIC KEY BLOCK-----';
const HEADER = /^[A-Za-z][A-Za-z0-9-]*: .*$/;
const DATA = /^[A-Za-z0-9+/]+={0,2}$/;
const CHECKSUM = /^=[A-Za-z0-9+/]{4}$/;

export type PgpKeyCheck = { ok: true } | { ok: false; message: string };

export function checkArmouredPublicKey(text: string): PgpKeyCheck {
  if (/-----BEGIN PGP PRIVATE KEY BLOCK-----/.test(text)) {
    return { ok: false, message: 'this is a PRIVATE key: never share it; paste your PUBLIC key block instead' };
  }
  const lines = text
    .trim()
    .split(/\r?\n/)
    .map((l) => l.trimEnd());
  const bad = { ok: false, message: `expected an ASCII-armoured OpenPGP public key block (${BEGIN} ... ${END})` } as const;
  if (lines[0] !== BEGIN || lines.at(-1) !== END) return bad;
  let i = 1;
  while (i < lines.length - 1 && HEADER.test(lines[i] as string)) i++;
  if (lines[i] !== '') return bad;
  const body = lines.slice(i + 1, -1).filter((l) => l !== '');
  if (body.length > 0 && CHECKSUM.test(body.at(-1) as string)) body.pop();
  if (body.length === 0 || !body.every((l) => DATA.test(l))) return bad;
  return { ok: true };
}
