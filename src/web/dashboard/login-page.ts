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
