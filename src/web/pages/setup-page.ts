import { html } from '../html.js';
import { fieldError, invalidAttrs, page } from '../layout.js';
import { HIGHEST_PLAN, PLANS } from '../../kernel/access.js';

export type SetupValues = { token?: string; companyName?: string; slug?: string; email?: string; plan?: string };

export function setupPage(values: SetupValues, errors: Record<string, string>, formError?: string): string {
  const v = (k: keyof SetupValues) => values[k] ?? '';
  const plan = values.plan ?? HIGHEST_PLAN;
  return page({
    title: 'Set up Cradle',
    brand: 'Cradle',
    body: html`<h1>Set up this Cradle instance</h1>
<p class="lead">No company exists yet. Create the first company and its administrator. The set-up token
was printed in the server's log when it started; it proves you run this server.</p>
${formError ? html`<div class="notice bad" role="alert">${formError}</div>` : ''}
<form method="post" action="/setup" novalidate>
<div class="field"><label for="token">Set-up token</label>
<input type="text" id="token" name="token" autocomplete="off" spellcheck="false" value="${v('token')}" ${invalidAttrs(errors, 'token')} required>
${fieldError(errors, 'token')}</div>
<div class="field"><label for="companyName">Company name</label>
<input type="text" id="companyName" name="companyName" maxlength="255" value="${v('companyName')}" ${invalidAttrs(errors, 'companyName')} required>
${fieldError(errors, 'companyName')}</div>
<div class="field"><label for="slug">Portal name</label>
<input type="text" id="slug" name="slug" maxlength="63" pattern="[a-z0-9]([a-z0-9\\-]*[a-z0-9])?" value="${v('slug')}" ${invalidAttrs(errors, 'slug')} required>
<p class="hint">Lowercase letters, digits and inner hyphens. Researchers will find your portal at this subdomain.</p>
${fieldError(errors, 'slug')}</div>
<div class="field"><label for="plan">Plan</label>
<select id="plan" name="plan" ${invalidAttrs(errors, 'plan')}>
${PLANS.map((p) => html`<option value="${p}" ${p === plan ? html`selected` : ''}>${p}</option>`)}
</select>${fieldError(errors, 'plan')}</div>
<div class="field"><label for="email">Administrator e-mail</label>
<input type="email" id="email" name="email" autocomplete="username" value="${v('email')}" ${invalidAttrs(errors, 'email')} required>
${fieldError(errors, 'email')}</div>
<div class="field"><label for="password">Administrator password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="15" maxlength="1024" ${invalidAttrs(errors, 'password')} required>
<p class="hint">At least 15 characters; a few unrelated words make a good one. Common and breached passwords, and ones containing your e-mail name or the company name, are refused.</p>
${fieldError(errors, 'password')}</div>
<button type="submit">Create company and administrator</button>
</form>`,
  });
}
