import type * as Yaml from 'yaml';
import { requireOnFirstUse } from '../../kernel/on-first-use.js';

/** What a project's security file names: addresses to write to, pages to report through, a key. */
export type FileContacts = { emails: string[]; urls: string[]; encryption: string[]; policy: string[] };

// Loaded by the first security file read, not at start (ADR 0027): 0.7 MiB of heap an idle server never uses.
const yaml = requireOnFirstUse<typeof Yaml>('yaml');

const EMAIL = /^[^\s@<>()"',;:]+@[^\s@<>()"',;:]+\.[a-z]{2,}$/i;
const MAX = 5;

const add = (list: string[], v: string) => {
  if (list.length < MAX && !list.includes(v)) list.push(v);
};

/**
 * RFC 9116 `security.txt`: Contact (mailto:, https:), Encryption (a URI of the key) and Policy
 * lines. A signed file is read through its cleartext signature (the signed text is what counts;
 * Cradle does not claim the signature was checked). Field names are case-insensitive; comments and
 * unknown fields are ignored.
 */
export function parseSecurityTxt(text: string): FileContacts {
  const out: FileContacts = { emails: [], urls: [], encryption: [], policy: [] };
  let body = text.replace(/^\uFEFF/, '');
  const signed = /-----BEGIN PGP SIGNED MESSAGE-----\r?\n(?:[^\r\n]+\r?\n)*\r?\n([\s\S]*?)-----BEGIN PGP SIGNATURE-----/.exec(body);
  if (signed?.[1] !== undefined) body = signed[1].replace(/^- /gm, '');
  for (const line of body.split(/\r?\n/)) {
    const m = /^([A-Za-z-]+):\s*(\S.*?)\s*$/.exec(line);
    if (!m) continue;
    const field = (m[1] as string).toLowerCase();
    const value = m[2] as string;
    if (field === 'contact') {
      if (/^mailto:/i.test(value)) {
        const address = decodeURIComponent(value.slice(7).split('?')[0] ?? '');
        if (EMAIL.test(address)) add(out.emails, address);
      } else if (/^https:\/\//i.test(value)) add(out.urls, value);
    } else if (field === 'encryption' && /^https?:\/\//i.test(value)) add(out.encryption, value);
    else if (field === 'policy' && /^https?:\/\//i.test(value)) add(out.policy, value);
  }
  return out;
}

/**
 * `SECURITY.md`: the e-mail addresses it names (mailto links or bare addresses) and a link to
 * report through GitHub's private reporting form (`/security/advisories/new`), which is taken as
 * the GitHub channel. Free text: only addresses and that link are read, nothing is guessed.
 */
export function parseSecurityMd(text: string): FileContacts & { githubReporting: boolean } {
  const out: FileContacts = { emails: [], urls: [], encryption: [], policy: [] };
  for (const m of text.matchAll(/(?:mailto:)?([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})/g)) {
    const address = (m[1] as string).replace(/\.$/, '');
    if (EMAIL.test(address) && !/@(example\.(com|org|net)|users\.noreply\.github\.com)$/i.test(address)) add(out.emails, address);
  }
  return { ...out, githubReporting: /\/security\/advisories\/new\b/.test(text) };
}

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * OpenSSF Security Insights: version 2 (`project.vulnerability-reporting`: `reports-accepted`,
 * `contact.email`, `policy`) and version 1 (`vulnerability-reporting`: `accepts-vulnerability-reports`,
 * `email-contact`, `security-policy`). A project that says it accepts no reports gives no contact.
 * Parsed as YAML 1.2 data only (no custom tags), with a small alias budget.
 */
export function parseSecurityInsights(source: string): FileContacts {
  const out: FileContacts = { emails: [], urls: [], encryption: [], policy: [] };
  const doc = rec(yaml().parse(source, { maxAliasCount: 50, customTags: [], uniqueKeys: false }));
  const v2 = rec(rec(doc.project)['vulnerability-reporting']);
  const v1 = rec(doc['vulnerability-reporting']);
  const accepts = v2['reports-accepted'] ?? v1['accepts-vulnerability-reports'];
  if (accepts === false) return out;
  const email = text(rec(v2.contact).email) ?? text(v1['email-contact']);
  if (email && EMAIL.test(email)) add(out.emails, email);
  const policy = text(v2.policy) ?? text(v1['security-policy']);
  if (policy && /^https?:\/\//i.test(policy)) add(out.policy, policy);
  const key = text(v1['pgp-key']);
  if (key && /^https?:\/\//i.test(key)) add(out.encryption, key);
  return out;
}
