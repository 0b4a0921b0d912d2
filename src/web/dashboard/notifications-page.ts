import type { Config } from '../../config.js';
import type { MailChoice, MailOverview } from '../../modules/mail/mail-preferences.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html } from '../html.js';
import { csrfField, dashboardPage } from './dashboard-layout.js';
import { timeTag } from '../times.js';
import { label, LABELS } from '../labels.js';

export const NOTIFICATIONS_PATH = '/settings/notifications';

/** The signed-in member's e-mail choices, and how the company's mail is doing. */
export function notificationsPage(o: {
  session: SessionView;
  config: Config;
  choices: MailChoice[];
  overview: MailOverview;
  notice?: string | undefined;
}): string {
  const s = o.session;
  const status = o.config.mail
    ? html`<p>E-mail is sent through the SMTP server the operator configured, from <code>${o.config.mail.from}</code>, at most ${o.config.mail.maxPerRecipientPerHour} mails per recipient per hour.</p>`
    : html`<p class="notice bad" role="status">E-mail is not configured on this Cradle instance (the operator sets <code>SMTP_URL</code> and <code>MAIL_FROM</code>): nothing is sent, to the team or to researchers. Use webhooks meanwhile.</p>`;
  const counts = LABELS.mailState.values.map((k) => html`<dt>${label('mailState', k)}</dt><dd>${o.overview.counts[k] ?? 0}</dd>`);
  return dashboardPage({
    title: 'Notifications',
    session: s,
    current: NOTIFICATIONS_PATH,
    notice: o.notice ? { kind: 'ok', text: o.notice } : undefined,
    body: html`<h1>Notifications</h1>
${status}
<h2>E-mail to you (${s.user.email})</h2>
<form method="post" action="${NOTIFICATIONS_PATH}" class="narrow">${csrfField(s)}
<fieldset><legend>Send me an e-mail when</legend>
${o.choices.map((c) => html`<div class="field"><input type="checkbox" id="mail-${c.kind}" name="kind" value="${c.kind}" ${c.enabled ? html`checked` : ''}> <label for="mail-${c.kind}">${c.label}</label></div>`)}
</fieldset>
<p>Mails carry ids, product, deadlines and a link, never report text.</p>
<button type="submit">Save</button></form>
<h2>The company's e-mail, last 7 days</h2>
<dl class="facts">${counts}</dl>
${
  o.overview.digests.length === 0
    ? ''
    : html`<h3>Held back into digests</h3>
<ul id="mail-digests">${o.overview.digests.map((d) => html`<li>${d.folded} new-report notices to ${d.recipient} were folded into a digest at ${timeTag(d.dueAt)} (${label('digestState', d.state)}).</li>`)}</ul>`
}
${
  o.overview.problems.length === 0
    ? html`<p>No mail failed or was held back.</p>`
    : html`<table class="data"><thead><tr><th>When (UTC)</th><th>Kind</th><th>To</th><th>State</th><th>Attempts</th><th>Last error</th></tr></thead>
<tbody>${o.overview.problems.map((p) => html`<tr><td>${timeTag(p.at)}</td><td>${label('mailKind', p.kind)}</td><td>${p.recipient}</td><td>${label('mailState', p.state)}</td><td>${p.attempts}</td><td>${p.error ?? ''}</td></tr>`)}</tbody></table>`
}`,
  });
}
