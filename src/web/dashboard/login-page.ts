import { html } from '../html.js';
import { page } from '../layout.js';

export function loginPage(o: { csrf: string; email?: string; next?: string; error?: string }): string {
  return page({
    title: 'Sign in · Cradle',
    brand: 'Cradle',
    body: html`<h1>Sign in</h1>
<p class="lead">Company administrators sign in here to manage API keys and read the audit log.</p>
${o.error ? html`<div class="notice bad" role="alert">${o.error}</div>` : ''}
<form method="post" action="/login" class="narrow">
<input type="hidden" name="_csrf" value="${o.csrf}">
${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
<div class="field"><label for="email">E-mail</label>
<input type="email" id="email" name="email" autocomplete="username" value="${o.email ?? ''}" required></div>
<div class="field"><label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required></div>
<button type="submit">Sign in</button>
</form>`,
  });
}

/** The second step of sign-in for an account with a second factor: a code from the app, or a recovery code. */
export function secondFactorPage(o: { csrf: string; pending: string; next?: string | undefined; error?: string | undefined }): string {
  return page({
    title: 'Second factor · Cradle',
    brand: 'Cradle',
    body: html`<h1>Enter your code</h1>
<p class="lead">Open your authenticator app and enter the 6-digit code it shows for Cradle. Lost the phone? Enter one of your recovery codes instead.</p>
${o.error ? html`<div class="notice bad" role="alert">${o.error}</div>` : ''}
<form method="post" action="/login/second-factor" class="narrow">
<input type="hidden" name="_csrf" value="${o.csrf}">
<input type="hidden" name="pending" value="${o.pending}">
${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
<div class="field"><label for="code">Code</label>
<input type="text" id="code" name="code" autocomplete="one-time-code" inputmode="text" spellcheck="false" maxlength="64" required autofocus></div>
<button type="submit">Sign in</button>
</form>
<p><a href="/login">Start again</a></p>`,
  });
}
