import type { SessionView } from '../../modules/sessions/sessions.js';
import type { Enrolment } from '../../modules/users/second-factor.js';
import { html, raw } from '../html.js';
import { fieldError, invalidAttrs } from '../layout.js';
import type { Notice } from './account-page.js';
import { csrfField, dashboardPage } from './dashboard-layout.js';

export const SECOND_FACTOR_PATH = '/account/second-factor';

/**
 * `enrolment`: the seed, only in the answer to the start form (which took the password); `pending`:
 * an enrolment waits for its code, whose seed is not shown again.
 */
export type SecondFactorState = { enrolment?: Enrolment | undefined; pending: boolean; recoveryCodesLeft: number; newCodes?: string[] | undefined };

const grouped = (secret: string): string => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

function passwordField(id: string, errors: Record<string, string>) {
  return html`<div class="field"><label for="${id}">Current password</label>
<input type="password" id="${id}" name="password" autocomplete="current-password" maxlength="1024" ${invalidAttrs(errors, 'password')} required>${fieldError(errors, 'password')}</div>`;
}

function startForm(s: SessionView, errors: Record<string, string>, label: string) {
  return html`<form method="post" action="${SECOND_FACTOR_PATH}/start" class="narrow" novalidate>${csrfField(s)}
${passwordField('start-password', errors)}<button type="submit">${label}</button></form>`;
}

function enrolmentForm(s: SessionView, e: Enrolment | undefined, errors: Record<string, string>) {
  // The QR code is our own rendering of the URI: rectangles only, no text, script or style, so it
  // is inserted as markup; the URI and the secret themselves are escaped like any value.
  const key = e
    ? html`<h2>Scan this with your authenticator app</h2>
<div class="qr">${raw(e.qrSvg)}</div>
<p>Or type the key by hand: <code id="totp-secret">${grouped(e.secret)}</code> (time-based, 6 digits, every 30 seconds). It is shown only now.</p>
<details><summary>Set-up link</summary><p class="capability">${e.uri}</p></details>`
    : html`<p>A set-up is waiting for a code from the app you added it to; its key is not shown again. Not added yet? Start again below.</p>`;
  return html`${key}
<form method="post" action="${SECOND_FACTOR_PATH}/confirm" class="narrow" novalidate>${csrfField(s)}
<div class="field"><label for="code">The 6-digit code the app shows now</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="7" ${invalidAttrs(errors, 'code')} required>${fieldError(errors, 'code')}</div>
<button type="submit">Turn on</button></form>
${e ? '' : html`<h2>Start again</h2>${startForm(s, errors, 'Start again with a new key')}`}`;
}

function codesShown(codes: string[]) {
  return html`<h2>Your recovery codes</h2>
<div class="notice ok" role="status">Save these ten codes somewhere safe now: they are shown only this once. Each signs you in once when the app is not at hand.</div>
<pre class="key" id="recovery-codes">${codes.join('\n')}</pre>`;
}

function manageForms(s: SessionView, st: SecondFactorState, errors: Record<string, string>) {
  return html`<p>The second factor is on. ${st.recoveryCodesLeft} of 10 recovery codes are unused.</p>
<h2>New recovery codes</h2>
<form method="post" action="${SECOND_FACTOR_PATH}/recovery-codes" class="narrow" novalidate>${csrfField(s)}
${passwordField('regen-password', errors)}
<button type="submit" class="secondary">Make new codes</button> <span class="hint">The old ones stop working.</span></form>
<h2>Turn off</h2>
${
  s.company.requireSecondFactor
    ? html`<p>${s.company.name} requires a second factor, so it cannot be turned off.</p>`
    : html`<form method="post" action="${SECOND_FACTOR_PATH}/disable" class="narrow" novalidate>${csrfField(s)}
<div class="field"><label for="off-password">Current password</label>
<input type="password" id="off-password" name="password" autocomplete="current-password" maxlength="1024" required></div>
<div class="field"><label for="off-code">A code from the app, or a recovery code</label>
<input type="text" id="off-code" name="code" autocomplete="one-time-code" maxlength="64" ${invalidAttrs(errors, 'code')} required>${fieldError(errors, 'code')}</div>
<button type="submit" class="danger">Turn off the second factor</button></form>`
}`;
}

/** `/account/second-factor`: set up (secret, QR, confirm), recovery codes, turn off. */
export function secondFactorPage(o: { session: SessionView; state: SecondFactorState; notice?: Notice; errors?: Record<string, string> }): string {
  const s = o.session;
  const errors = o.errors ?? {};
  const st = o.state;
  const forced = s.company.requireSecondFactor && !s.user.secondFactor;
  const body = st.newCodes
    ? html`${codesShown(st.newCodes)}<p><a href="/account">Back to your account</a></p>`
    : s.user.secondFactor
      ? manageForms(s, st, errors)
      : st.enrolment || st.pending
        ? enrolmentForm(s, st.enrolment, errors)
        : html`<p>A second factor asks for a code from an authenticator app on your phone (any app that reads TOTP codes) after your password, so a stolen password alone does not open your account.</p>
${startForm(s, errors, 'Set up an authenticator app')}`;
  return dashboardPage({
    title: 'Second factor',
    session: s,
    current: '/account',
    notice: o.notice ?? (forced ? { kind: 'bad', text: `${s.company.name} requires a second factor. Set it up to continue.` } : undefined),
    body: html`<h1>Second factor</h1>${body}`,
  });
}
