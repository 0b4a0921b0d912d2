import type { Company } from '../../modules/companies/companies.schemas.js';

/** Expires lies this far ahead: well under RFC 9116's one-year ceiling, renewed on every request. */
export const SECURITY_TXT_LIFETIME_DAYS = 90;

/** Name of our extension field (RFC 9116 section 2.4: readers ignore fields they do not know). */
export const REPORT_FORMAT_FIELD = 'Preferred-Report-Format';

/**
 * A field value on one line. Settings are validated, but a URL may still carry characters that
 * `new URL()` strips (a line break in `https://a/\nContact: ...` passes URL validation), and a line
 * break in a value would inject a field; so URLs are re-serialised and other text is flattened.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const oneLine = (s: string): string => s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
const uri = (s: string): string => oneLine(new URL(s).href);

/** Where each portal publishes the public half of the operator's security.txt signing key. */
export const SIGNING_KEY_PATH = '/security-txt-signing-key.txt';

export type SecurityTxtOptions = { csaf?: boolean; acknowledgments?: boolean; signedBy?: { fingerprint: string } };

/** Midnight UTC `days` ahead: stable through the day (cacheable), never more than `days` away. */
export function expiresAt(now: Date, days = SECURITY_TXT_LIFETIME_DAYS): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  d.setUTCDate(d.getUTCDate() + days);
  return d;
}

/**
 * RFC 9116 security.txt of one portal. Valid with no optional setting filled in. `csaf`: the
 * company has released an advisory, so the CSAF field (CSAF 2.0 requirement 8) points at its
 * provider metadata; before that the provider answers 404 and the field is left out.
 * `acknowledgments`: the acknowledgments page names someone (RFC 9116 2.5.1: a page of
 * researchers thanked; an empty page is not advertised). `signedBy`: the file goes out
 * cleartext-signed (section 2.3), and a comment names the key and where it is published.
 */
export function securityTxt(c: Company, portal: string, now: Date, o: SecurityTxtOptions = {}): string {
  const lines = [
    `# Security contact of this portal. Report vulnerabilities through the web form or by e-mail.`,
    ...(o.signedBy ? [`# Signed with the OpenPGP key ${oneLine(o.signedBy.fingerprint)}, published at ${uri(`${portal}${SIGNING_KEY_PATH}`)}`] : []),
    // Contact order is preference order: the web form first, then the human-read mailbox.
    `Contact: ${uri(`${portal}/submit`)}`,
    ...(c.securityEmail ? [`Contact: mailto:${oneLine(c.securityEmail)}`] : []),
    `Expires: ${expiresAt(now).toISOString().replace('.000Z', 'Z')}`,
    ...(c.pgpPublicKey ? [`Encryption: ${uri(`${portal}/pgp-key.txt`)}`] : []),
    ...(o.acknowledgments ? [`Acknowledgments: ${uri(`${portal}/acknowledgments`)}`] : []),
    `Preferred-Languages: ${c.languages.map(oneLine).join(', ')}`,
    // The company's own policy page, else the portal's page of its written policy; none published: no field.
    ...(c.policyUrl ? [`Policy: ${uri(c.policyUrl)}`] : c.policyText ? [`Policy: ${uri(`${portal}/policy`)}`] : []),
    `Canonical: ${uri(`${portal}/.well-known/security.txt`)}`,
    ...(o.csaf ? [`CSAF: ${uri(`${portal}/.well-known/csaf/provider-metadata.json`)}`] : []),
    `${REPORT_FORMAT_FIELD}: ${oneLine(c.preferredReportFormat ?? '') || 'web form (first Contact) or JSON to the bulk endpoint'}`,
  ];
  return `${lines.join('\n')}\n`;
}
