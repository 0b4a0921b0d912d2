import type { SessionView } from '../../modules/sessions/sessions.js';
import type { InvitationView, IssuedInvitation, Member } from '../../modules/team/team.schemas.js';
import { ROLE_LABELS, ROLES } from '../../modules/users/roles.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { timeTag, utc } from '../times.js';

export const TEAM_PATH = '/settings/team';

export type InviteFormValues = { email?: string; role?: string };

const roleOptions = (chosen: string | undefined) =>
  ROLES.map((r) => html`<option value="${r}" ${r === chosen ? html`selected` : ''}>${ROLE_LABELS[r]}</option>`);

function issuedPanel(i: IssuedInvitation, resent: boolean): SafeHtml {
  if (i.mailQueued)
    return html`<div class="notice ok" role="status">${resent ? 'A new invitation was mailed to' : 'An invitation was mailed to'} ${i.invitation.email}; the link works once, until ${utc(i.invitation.expiresAt)}.</div>`;
  return html`<section class="issued" aria-labelledby="invite-link-title">
<h2 id="invite-link-title">Invitation link for ${i.invitation.email}</h2>
<p><strong>E-mail is off on this instance, so nothing was sent: give this link to ${i.invitation.email} yourself.</strong> It is shown only now, works once, and until ${utc(i.invitation.expiresAt)}.${resent ? ' The earlier link has stopped working.' : ''}</p>
<div class="copy-row"><label for="invite-link" class="visually-hidden">Invitation link</label>
<input type="text" id="invite-link" class="secret" readonly value="${i.link}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="invite-link" hidden>Copy</button></div>
</section>`;
}

function memberRow(s: SessionView, m: Member, manage: boolean): SafeHtml {
  const you = m.id === s.user.id;
  return html`<tr data-member="${m.email}"><td>${m.email}${you ? html` <span class="hint">(you)</span>` : ''}</td><td>${ROLE_LABELS[m.role]}</td><td>${timeTag(m.createdAt)}</td>
<td>${m.lastSignInAt ? timeTag(m.lastSignInAt) : html`<span class="hint">never</span>`}</td>
${
  manage
    ? html`<td class="actions"><form method="post" action="${TEAM_PATH}/members/${m.id}/role" class="inline">${csrfField(s)}
<label class="visually-hidden" for="role-${m.id}">Role of ${m.email}</label><select id="role-${m.id}" name="role">${roleOptions(m.role)}</select>
<button type="submit" class="secondary">Change role</button></form>
<form method="post" action="${TEAM_PATH}/members/${m.id}/remove" class="inline">${csrfField(s)}<button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button></form></td>`
    : ''
}</tr>`;
}

function invitationRow(s: SessionView, i: InvitationView, manage: boolean): SafeHtml {
  return html`<tr data-invitation="${i.email}"><td>${i.email}</td><td>${ROLE_LABELS[i.role]}</td><td>${timeTag(i.createdAt)}</td>
<td>${i.expired ? html`<span class="status status-expired">expired</span>` : timeTag(i.expiresAt)}</td>
${
  manage
    ? html`<td class="actions"><form method="post" action="${TEAM_PATH}/invitations/${i.id}/resend" class="inline">${csrfField(s)}<button type="submit" class="secondary" aria-label="Send the invitation to ${i.email} again">Send again</button></form>
<form method="post" action="${TEAM_PATH}/invitations/${i.id}/revoke" class="inline">${csrfField(s)}<button type="submit" class="danger" aria-label="Revoke the invitation of ${i.email}">Revoke</button></form></td>`
    : ''
}</tr>`;
}

function inviteForm(s: SessionView, v: InviteFormValues, errors: Record<string, string>): SafeHtml {
  return html`<h2>Invite someone</h2>
<form method="post" action="${TEAM_PATH}/invitations" class="narrow" id="invite-form">${csrfField(s)}
<div class="field"><label for="invite-email">E-mail</label>
<input type="email" id="invite-email" name="email" maxlength="254" required value="${v.email ?? ''}" ${errors.email ? html`aria-invalid="true"` : ''}>
${errors.email ? html`<p class="error-text">${errors.email}</p>` : ''}</div>
<div class="field"><label for="invite-role">Role</label>
<select id="invite-role" name="role">${roleOptions(v.role ?? 'psirt')}</select>
<p class="hint">Administrator: everything. PSIRT member: reports, triage, Article 14, advisories, products and evidence; not keys, team or settings. Viewer: reads every page, changes nothing.</p>
${errors.role ? html`<p class="error-text">${errors.role}</p>` : ''}</div>
<button type="submit">Send invitation</button>
</form>`;
}

export function teamPage(o: {
  session: SessionView;
  members: Member[];
  invitations: InvitationView[];
  mailOn: boolean;
  issued?: { invitation: IssuedInvitation; resent: boolean } | undefined;
  values?: InviteFormValues;
  errors?: Record<string, string>;
  notice?: { kind: 'ok' | 'bad'; text: string } | undefined;
}): string {
  const s = o.session;
  const manage = sessionMay(s, 'admin');
  const head = (cols: string[]) =>
    html`<thead><tr>${cols.map((c) => html`<th>${c}</th>`)}${manage ? html`<th><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead>`;
  const admins = o.members.filter((m) => m.role === 'admin').length;
  return dashboardPage({
    title: 'Team',
    session: s,
    current: TEAM_PATH,
    notice: o.notice,
    withCopyScript: !!o.issued && !o.issued.invitation.mailQueued,
    body: html`<h1>Team</h1>
<p class="lead">The people of ${s.company.name} who sign in to Cradle, and what each may do. Changing someone's role or removing them ends their sessions at once.</p>
${o.mailOn ? '' : html`<div class="notice" id="mail-off">E-mail is off on this instance (no SMTP server is configured): an invitation's link is shown here once, to pass on yourself.</div>`}
${o.issued ? issuedPanel(o.issued.invitation, o.issued.resent) : ''}
<h2>Members</h2>
<table class="data" id="members">${head(['E-mail', 'Role', 'Member since', 'Last sign-in'])}
<tbody>${o.members.map((m) => memberRow(s, m, manage))}</tbody></table>
${admins === 1 ? html`<p class="hint">The only administrator can be neither removed nor given another role: make another member an administrator first.</p>` : ''}
${manage ? inviteForm(s, o.values ?? {}, o.errors ?? {}) : ''}
<h2>Pending invitations</h2>
${o.invitations.length === 0 ? html`<p>No pending invitations.</p>` : html`<table class="data" id="invitations">${head(['E-mail', 'Role', 'Sent', 'Link works until'])}<tbody>${o.invitations.map((i) => invitationRow(s, i, manage))}</tbody></table>`}`,
  });
}
