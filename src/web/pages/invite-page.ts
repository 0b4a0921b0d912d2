import type { FoundInvitation } from '../../modules/team/accept-invitation.js';
import { ROLE_LABELS } from '../../modules/users/roles.js';
import { html } from '../html.js';
import { fieldError, invalidAttrs, page } from '../layout.js';
import { utc } from '../times.js';

/** The accept form: the company and role the link is for, and a new password. */
export function invitePage(o: {
  invitation: FoundInvitation;
  path: string;
  csrf: string;
  errors?: Record<string, string>;
  formError?: string | undefined;
}): string {
  const i = o.invitation;
  const errors = o.errors ?? {};
  return page({
    title: `Join ${i.companyName} · Cradle`,
    brand: 'Cradle',
    body: html`<h1>Join ${i.companyName}</h1>
<p class="lead">You were invited to ${i.companyName} on Cradle as <strong id="invited-role">${ROLE_LABELS[i.role]}</strong>. Choose a password to create your account; you will be signed in at once.</p>
${o.formError ? html`<div class="notice bad" role="alert">${o.formError}</div>` : ''}
<form method="post" action="${o.path}" class="narrow" novalidate>
<input type="hidden" name="_csrf" value="${o.csrf}">
<div class="field"><label for="email">E-mail</label>
<input type="email" id="email" name="email" autocomplete="username" value="${i.email}" readonly></div>
<div class="field"><label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="15" ${invalidAttrs(errors, 'password')} required>
<p class="hint">At least 15 characters; a few unrelated words make a good one. Common and breached passwords, and ones containing your e-mail name or the company name, are refused. The link works once and until ${utc(i.expiresAt)}.</p>
${fieldError(errors, 'password')}</div>
<button type="submit">Create account and sign in</button>
</form>`,
  });
}

const GONE: Record<'unknown' | 'taken' | 'accepted' | 'revoked' | 'expired', { title: string; text: string }> = {
  unknown: { title: 'This invitation link is not valid', text: 'Check that the whole link was copied. If it was sent again, only the newest link works.' },
  taken: {
    title: 'This address already has a Cradle account',
    text: 'An address belongs to one company on this Cradle instance, so this invitation cannot make a second account. Sign in with your existing account, or ask whoever invited you to invite another address of yours.',
  },
  accepted: { title: 'This invitation was already used', text: 'An invitation link works once. If the account is yours, sign in.' },
  revoked: {
    title: 'This invitation was withdrawn',
    text: 'An administrator of the company revoked it. Ask them for a new invitation if you should have access.',
  },
  expired: { title: 'This invitation has expired', text: 'Invitation links work for 7 days. Ask an administrator of the company to send it again.' },
};

/** The page for a link that cannot be used: says why, names nothing else (not the company of an unknown link). */
export function inviteUnusablePage(state: keyof typeof GONE): string {
  const g = GONE[state];
  return page({
    title: `${g.title} · Cradle`,
    brand: 'Cradle',
    nav: [{ href: '/login', label: 'Sign in' }],
    body: html`<h1>${g.title}</h1>
<p class="lead" id="invite-gone" data-state="${state}">${g.text}</p>
<p><a href="/login">Sign in</a></p>`,
  });
}
