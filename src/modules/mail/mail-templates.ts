import { headerText } from './mail-header.js';
import type { MailKind } from './mail-kinds.js';

/**
 * What a mail says, by kind. A mail carries ids, product, status, deadlines and links, never report
 * text: the report's description, steps, impact and messages stay behind the link, where the reader
 * signs in (team) or holds the private status link (researcher). Only English for now; `lang` picks
 * the company's first portal language once a translation exists.
 */
export type MailData = Record<string, string>;
export type MailLinks = { action?: string; unsubscribe?: string };
export type RenderedMail = { subject: string; text: string; html: string };

type Template = { subject: (d: MailData) => string; lines: (d: MailData) => string[]; action?: string };

/** What an `account.security_notice` says happened, by its `change` (src/modules/users/account-notice.ts). */
const ACCOUNT_CHANGES: Record<string, string> = {
  second_factor_enabled: 'the second factor was turned on and new recovery codes were made',
  second_factor_disabled: 'the second factor was turned off',
  recovery_codes_regenerated: 'new recovery codes were made (the old ones no longer work)',
};

/** What a `case.update` says a participant did. */
const CASE_CHANGES: Record<string, string> = {
  acknowledged: 'acknowledged the notice',
  embargo_accepted: 'accepted the embargo',
  embargo_countered: 'proposed another embargo date',
};

const product = (d: MailData): string => (d.product ? ` (${d.product})` : '');

const EN: Record<MailKind, Template> = {
  'report.new': {
    subject: (d) => `New vulnerability report ${d.submissionId}${product(d)}`,
    lines: (d) => [
      `A new vulnerability report was filed${d.source ? ` through ${d.source.replace('_', ' ')}` : ''}.`,
      `Submission: ${d.submissionId}`,
      ...(d.product ? [`Product: ${d.product}`] : []),
      ...(d.type ? [`Type: ${d.type}`] : []),
    ],
    action: 'Open the report',
  },
  'report.digest': {
    subject: (d) => `${d.count} more new vulnerability reports (digest)`,
    lines: (d) => [
      `${d.count} new vulnerability reports arrived while your mail limit for the hour was reached: instead of one mail each, they are counted here.`,
      'Each report is in the inbox; no report text is copied into e-mail.',
    ],
    action: 'Open the inbox',
  },
  'report.message': {
    subject: (d) => `The researcher wrote about report ${d.submissionId}`,
    lines: (d) => [
      `The researcher added a message to the thread of report ${d.submissionId}.`,
      'The message is in the dashboard; it is not copied into e-mail.',
    ],
    action: 'Read the thread',
  },
  'report.response_overdue': {
    subject: (d) => `Overdue: ${d.clock === 'acknowledge' ? 'acknowledgement' : 'first assessment'} of report ${d.submissionId}`,
    lines: (d) => [
      `Report ${d.submissionId} was promised ${d.clock === 'acknowledge' ? 'an acknowledgement' : 'a first assessment'} by ${d.dueAt} (the response times on your portal), and it has not had one.`,
    ],
    action: 'Open the report',
  },
  'article14.approaching': {
    subject: (d) => `Article 14 ${d.stage} due ${d.dueAt} for report ${d.submissionId}`,
    lines: (d) => [`The Article 14 ${d.stage} for report ${d.submissionId} is due at ${d.dueAt}.`],
    action: 'Open the report',
  },
  'article14.overdue': {
    subject: (d) => `OVERDUE: Article 14 ${d.stage} for report ${d.submissionId}`,
    lines: (d) => [`The Article 14 ${d.stage} for report ${d.submissionId} was due at ${d.dueAt} and has not been recorded as filed.`],
    action: 'Open the report',
  },
  'vulnerability.kev': {
    subject: (d) => `Actively exploited vulnerability in ${d.product}: ${d.vulnerabilities}`,
    lines: (d) => [
      `Known exploited vulnerabilities (CISA KEV) were found in components of ${d.product}: ${d.vulnerabilities}.`,
      'If the product is on the market, decide on your awareness: confirming opens the Article 14 case, whose early warning is due 24 hours later.',
    ],
    action: 'Decide in Known vulnerabilities',
  },
  'webhook.dead_lettered': {
    subject: () => 'A webhook delivery was given up',
    lines: (d) => [`A delivery to webhook ${d.webhookId} failed on every attempt and was dead-lettered.`, ...(d.eventType ? [`Event: ${d.eventType}`] : [])],
    action: 'See the delivery log',
  },
  'api_key.expiring': {
    subject: (d) => `API key "${d.keyName}" expires ${d.expiresAt}`,
    lines: (d) => [
      `The API key "${d.keyName}" (ending ${d.keyHint}) expires at ${d.expiresAt}.`,
      'Rotating it issues a new value with a new expiry; whatever uses the key (CI, agents) then needs the new value.',
    ],
    action: 'Manage API keys',
  },
  'team.invitation': {
    subject: (d) => `${d.company}: you are invited to join as ${d.role}`,
    lines: (d) => [
      `${d.company} invites you to join its team on Cradle as ${d.role}.`,
      `The link below works once and until ${d.expiresAt}. If you did not expect this invitation, ignore this mail: nothing happens unless the link is opened and a password chosen.`,
    ],
    action: 'Accept the invitation',
  },
  'account.security_notice': {
    subject: (d) => `Your account: ${ACCOUNT_CHANGES[d.change ?? ''] ?? 'a sign-in setting changed'}`,
    lines: (d) => [
      `On ${d.at}, in a session of your account (${d.email}), ${ACCOUNT_CHANGES[d.change ?? ''] ?? 'a sign-in setting changed'}.`,
      'If that was you, nothing needs doing. If it was not, someone holds one of your sessions: sign in, change your password (which ends every other session), check the second factor, and tell an administrator.',
    ],
    action: 'Open your account',
  },
  'case.update': {
    subject: (d) => `Case ${(d.caseId ?? '').slice(0, 8)}: ${CASE_CHANGES[d.change ?? ''] ?? 'a participant answered'}`,
    lines: (d) => [
      `In coordination case ${d.caseId}, ${d.participant ? `the participant "${d.participant}"` : 'a participant'} ${CASE_CHANGES[d.change ?? ''] ?? 'answered'}${d.until ? ` (${d.until})` : ''}.`,
    ],
    action: 'Open the case',
  },
  'case.notice': {
    // Composed from the confirmed notice itself (compose-mail.ts); this entry only names the kind.
    subject: (d) => d.subject ?? 'Coordinated vulnerability disclosure',
    lines: (d) => [d.text ?? ''],
  },
  'researcher.ack': {
    subject: (d) => `Confirm e-mail updates about report ${d.submissionId}`,
    lines: (d) => [
      `A vulnerability report was filed and e-mail updates about it were asked for at this address.`,
      `Submission: ${d.submissionId}`,
      'If you filed it, confirm this address to get a mail when its status changes or the team writes. Read and answer at the private status link you were shown when you filed it.',
      'If you did not, ignore this mail: nothing more is sent to this address about this report.',
    ],
    action: 'Confirm this address',
  },
  'researcher.erasure': {
    subject: (d) => `${d.company}: your personal data was erased`,
    lines: (d) => [
      d.state === 'held'
        ? `${d.company} recorded your request to erase your personal data. Part of it is under a legal hold, which forbids erasing it for now; it will be erased as soon as the hold is released.`
        : `${d.company} erased your personal data from ${d.reports} report(s) as you asked: your e-mail address, OpenPGP key, the client address and browser string of your requests, and your name and addresses in the reports and their threads, which now call you ${d.pseudonym}.`,
      `Kept: the technical content of the reports, which ${d.company} must keep as technical documentation under the EU Cyber Resilience Act (Article 13(13); GDPR Article 17(3)(b) allows this); advisories already published, as released (credits are dropped from their next revision); and a record of your request without your address.`,
      'This is the last mail sent to this address about your reports. Their private status links still show them.',
    ],
  },
  'researcher.status': {
    subject: (d) => `Report ${d.submissionId}: status is now ${d.status}`,
    lines: (d) => [`The status of your report ${d.submissionId} changed to "${d.status}".`, 'Details are at the private status link from the acknowledgement.'],
  },
  'researcher.message': {
    subject: (d) => `The team wrote about your report ${d.submissionId}`,
    lines: (d) => [`The team wrote a message about your report ${d.submissionId}.`, 'Read it at the private status link from the acknowledgement.'],
  },
};

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c] ?? c);

/** Subject (one header-safe line), plain text, and HTML with every value escaped. */
export function renderMail(kind: MailKind, data: MailData, sender: string, links: MailLinks): RenderedMail {
  const t = EN[kind];
  const lines = t.lines(data).filter((l) => l !== '');
  const footer = links.unsubscribe
    ? `You get this mail from ${sender} through Cradle. To stop these mails: ${links.unsubscribe}`
    : `Sent by ${sender} through Cradle.`;
  const text = [...lines, ...(t.action && links.action ? ['', `${t.action}: ${links.action}`] : []), '', '-- ', footer, ''].join('\n');
  const link = (href: string, label: string) => `<a href="${esc(href)}">${esc(label)}</a>`;
  const html = [
    '<!doctype html><html><body>',
    ...lines.map((l) => (/^https?:\/\//.test(l) ? `<p>${link(l, l)}</p>` : `<p>${esc(l)}</p>`)),
    ...(t.action && links.action ? [`<p>${link(links.action, t.action)}</p>`] : []),
    `<hr><p><small>${links.unsubscribe ? `You get this mail from ${esc(sender)} through Cradle. ${link(links.unsubscribe, 'Stop these mails')}` : `Sent by ${esc(sender)} through Cradle.`}</small></p>`,
    '</body></html>',
  ].join('\n');
  return { subject: headerText(t.subject(data), 160), text, html };
}
