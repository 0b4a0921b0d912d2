import { type Config, portalUrl, siteUrl } from '../../config.js';
import { headerText } from './mail-header.js';
import { DIGEST_MAIL_KIND, ERASURE_MAIL_KIND, isAccountMailKind, isInviteeMailKind, isParticipantMailKind, isResearcherMailKind } from './mail-kinds.js';
import type { ClaimedMail } from './mail-queue.js';
import { type MailLinks, renderMail } from './mail-templates.js';

export type ComposedMail = {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  encrypted: boolean;
};

function linksFor(m: ClaimedMail, config: Config): MailLinks {
  const site = siteUrl(config);
  if (isResearcherMailKind(m.kind)) {
    const token = m.researcher?.mailToken;
    if (!token || !m.reportId) return {};
    const portal = portalUrl(config, m.company.slug);
    // The acknowledgement's one link confirms the address (issue 32, finding 4); none leads to report text.
    return {
      unsubscribe: `${portal}/mail/stop/${m.reportId}/${token}`,
      ...(m.kind === 'researcher.ack' ? { action: `${portal}/mail/confirm/${m.reportId}/${token}` } : {}),
    };
  }
  if (m.kind === ERASURE_MAIL_KIND) return {};
  // The invitation's own link is its only link: an invitee has no settings to unsubscribe in.
  if (isInviteeMailKind(m.kind)) return m.data.inviteUrl ? { action: m.data.inviteUrl } : {};
  // A case notice carries its own private link in its (possibly encrypted) text.
  if (isParticipantMailKind(m.kind)) return {};
  // A security notice cannot be unsubscribed from: it is the owner's word that their account changed.
  if (isAccountMailKind(m.kind)) return { action: `${site}/account` };
  const action =
    m.kind === 'webhook.dead_lettered'
      ? `${site}/settings/webhooks`
      : m.kind === 'api_key.expiring'
        ? `${site}/settings/api-keys`
        : m.kind === 'vulnerability.kev'
          ? `${site}/known-vulnerabilities`
          : m.kind === 'case.update' && m.data.caseId
            ? `${site}/cases/${m.data.caseId}`
            : m.kind === DIGEST_MAIL_KIND
              ? `${site}/reports`
              : m.data.submissionId
                ? `${site}/reports/${m.data.submissionId}`
                : `${site}/dashboard`;
  return { action, unsubscribe: `${site}/settings/notifications` };
}

/** The researcher's key, if it can encrypt; a key that cannot (expired, revoked, no encryption subkey) is undefined. */
// openpgp is loaded on first use: most instances never encrypt a mail, and it is large to load at start.
export const loadOpenpgp = () => import('openpgp');
const pgp = loadOpenpgp;

export async function usableKey(armored: string | null | undefined) {
  if (!armored) return undefined;
  try {
    const key = await (await pgp()).readKey({ armoredKey: armored });
    await key.getEncryptionKey();
    return key;
  } catch {
    return undefined;
  }
}

/**
 * The message for a claimed mail. The sender's display name is the company's name (header-safe);
 * the address is the operator's MAIL_FROM. Researcher mail is OpenPGP-encrypted when the report
 * carries a usable key: both parts then hold only the armored message. When the key cannot be
 * used, the mail goes in clear (no researcher mail carries the status link or report text).
 */
export async function composeMail(m: ClaimedMail, config: Config, from: string): Promise<ComposedMail> {
  const sender = headerText(m.company.name, 80) || 'Cradle';
  const links = linksFor(m, config);
  const headers: Record<string, string> = { 'Auto-Submitted': 'auto-generated' };
  if (links.unsubscribe) headers['List-Unsubscribe'] = `<${links.unsubscribe}>`;
  // The researcher's link stops mail with a POST (RFC 8058); the team's opens their settings page.
  if (links.unsubscribe && isResearcherMailKind(m.kind)) headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  const base = { from: { name: sender, address: from }, to: m.recipient, headers };
  if (isParticipantMailKind(m.kind)) {
    // The text was fixed (and encrypted, when a key is known) when the notice was confirmed.
    const text = m.data.text ?? '';
    const html = `<!doctype html><html><body><pre>${text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</pre></body></html>`;
    return { ...base, subject: headerText(m.data.subject ?? '', 160), text, html, encrypted: m.data.encrypted === 'yes' };
  }
  const key = isResearcherMailKind(m.kind) ? await usableKey(m.researcher?.pgpKey) : undefined;
  if (!key) return { ...base, ...renderMail(m.kind, m.data, sender, links), encrypted: false };
  const r = renderMail(m.kind, m.data, sender, links);
  const { createMessage, encrypt } = await pgp();
  const armored = (await encrypt({ message: await createMessage({ text: r.text }), encryptionKeys: key })) as string;
  const html = `<!doctype html><html><body><pre>${armored}</pre></body></html>`;
  return { ...base, subject: r.subject, text: armored, html, encrypted: true };
}
