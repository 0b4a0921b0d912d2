import type { AccountSession } from '../../modules/sessions/account-sessions.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { PASSWORD_MIN } from '../../modules/users/password-policy.js';
import { html } from '../html.js';
import { fieldError, invalidAttrs } from '../layout.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { timeTag } from '../times.js';

export const ACCOUNT_PATH = '/account';
export type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

function sessionsTable(s: SessionView, list: AccountSession[]) {
  return html`<table class="data"><thead><tr><th>Signed in (UTC)</th><th>Last seen (UTC)</th><th>From</th><th>Browser</th><th></th></tr></thead>
<tbody>${list.map(
    (
      x,
    ) => html`<tr${x.current ? html` class="current"` : ''}><td>${timeTag(x.createdAt)}</td><td>${timeTag(x.lastSeenAt)}</td><td>${x.address ?? 'unknown'}</td><td class="ua">${x.userAgent ?? 'unknown'}</td>
<td class="actions">${x.current ? html`<strong>this session</strong> ` : ''}<form method="post" action="/account/sessions/${x.id}/end" class="inline">${csrfField(s)}<button type="submit" class="secondary">End</button></form></td></tr>`,
  )}</tbody></table>`;
}

/** `/account`: the signed-in person's password, second factor, sessions; the company's requirement for administrators. */
export function accountPage(o: { session: SessionView; sessions: AccountSession[]; notice?: Notice; errors?: Record<string, string> }): string {
  const s = o.session;
  const errors = o.errors ?? {};
  const required = html`Every member of ${s.company.name} must sign in with a second factor`;
  const explained = html`<p class="hint">Members without one are sent to set it up right after they sign in and can open nothing else until they have.</p>`;
  // An administrator gets the form; a viewer (an auditor) reads the setting; a PSIRT member neither.
  const policy = sessionMay(s, 'admin')
    ? html`<h2>Company security</h2>
<form method="post" action="/account/security-policy" class="narrow">${csrfField(s)}
<div class="field"><input type="checkbox" id="requireSecondFactor" name="requireSecondFactor" value="on" ${s.company.requireSecondFactor ? html`checked` : ''}>
<label for="requireSecondFactor">${required}</label></div>
${explained}
<button type="submit">Save</button></form>`
    : sessionMay(s, 'read-admin')
      ? html`<h2>Company security</h2>
<dl class="facts"><dt>${required}</dt><dd>${s.company.requireSecondFactor ? 'Yes' : 'No'}</dd></dl>
${explained}<p class="hint">Only an administrator can change this.</p>`
      : '';
  return dashboardPage({
    title: 'Your account',
    session: s,
    current: ACCOUNT_PATH,
    notice: o.notice,
    body: html`<h1>Your account</h1>
<dl class="facts"><dt>E-mail</dt><dd>${s.user.email}</dd><dt>Second factor</dt><dd>${s.user.secondFactor ? 'on' : 'off'} (<a href="/account/second-factor">${s.user.secondFactor ? 'manage' : 'set up'}</a>)</dd></dl>
<h2>Change password</h2>
<form method="post" action="/account/password" class="narrow" novalidate>${csrfField(s)}
<div class="field"><label for="currentPassword">Current password</label>
<input type="password" id="currentPassword" name="currentPassword" autocomplete="current-password" maxlength="1024" ${invalidAttrs(errors, 'currentPassword')} required>${fieldError(errors, 'currentPassword')}</div>
<div class="field"><label for="newPassword">New password</label>
<input type="password" id="newPassword" name="newPassword" autocomplete="new-password" minlength="${PASSWORD_MIN}" maxlength="1024" ${invalidAttrs(errors, 'newPassword')} required>
<p class="hint">At least ${PASSWORD_MIN} characters; a few unrelated words make a good one. Common and breached passwords, and ones containing your e-mail name or the company's name, are refused. Your other sessions end when it changes.</p>
${fieldError(errors, 'newPassword')}</div>
<button type="submit">Change password</button></form>
<h2>Active sessions</h2>
${sessionsTable(s, o.sessions)}
<form method="post" action="/account/sessions/end-all">${csrfField(s)}<button type="submit" class="danger">Sign out everywhere</button>
<span class="hint">Ends every session, this one too.</span></form>
${policy}`,
  });
}
