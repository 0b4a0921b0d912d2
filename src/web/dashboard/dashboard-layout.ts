import { COPY_SCRIPT_PATH, STYLESHEET_PATH } from '../assets.js';
import { html, type SafeHtml } from '../html.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { type Access, authorize, type Need } from '../../kernel/access.js';
import { ROLE_LABELS } from '../../modules/users/roles.js';
import { routeNeed } from './route-access.js';
import { label } from '../labels.js';

export const DASHBOARD_NAV = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/compliance', label: 'Compliance' },
  { href: '/reports', label: 'Reports' },
  { href: '/cases', label: 'Cases' },
  { href: '/products', label: 'Products' },
  { href: '/settings/portal', label: 'Portal' },
  { href: '/settings/api-keys', label: 'API keys' },
  { href: '/settings/team', label: 'Team' },
  { href: '/settings/webhooks', label: 'Webhooks' },
  { href: '/settings/retention', label: 'Retention' },
  { href: '/settings/notifications', label: 'Notifications' },
  { href: '/audit', label: 'Audit log' },
  { href: '/evidence', label: 'Evidence' },
  { href: '/known-vulnerabilities', label: 'Known vulnerabilities' },
  { href: '/advisories', label: 'Advisories' },
  { href: '/upstream-contacts', label: 'Upstream' },
] as const;

export type DashboardPageOptions = {
  title: string;
  session: SessionView;
  /** The nav entry to mark as current. */
  current: string;
  body: SafeHtml;
  notice?: { kind: 'ok' | 'bad'; text: string } | undefined;
  withCopyScript?: boolean;
  /** Reports needing attention now (overdue Article 14 stages): a badge beside "Reports". */
  attention?: number | undefined;
};

/**
 * Whether `authorize` lets the signed-in member do it (an access level, or a need such as a
 * route's): the one way a page checks a role; pages show a form only to those who may send it.
 */
export const sessionMay = (s: SessionView, need: Access | Need): boolean =>
  !authorize({ plan: s.company.plan, role: s.user.role }, typeof need === 'string' ? { access: need } : need);

/** Whether the member may use a dashboard route (`METHOD /path`), as the route check will answer. */
export const sessionMayRoute = (s: SessionView, route: string): boolean => {
  const need = routeNeed(route);
  return need !== undefined && sessionMay(s, need);
};

/** Navigation shows the pages the role may open (the route check refuses the rest anyway). */
const navFor = (s: SessionView) => DASHBOARD_NAV.filter((n) => sessionMayRoute(s, `GET ${n.href}`));

/** A hidden CSRF field: every state-changing dashboard form carries one. */
export const csrfField = (s: SessionView): SafeHtml => html`<input type="hidden" name="_csrf" value="${s.csrfToken}">`;

/**
 * The shell of every dashboard page: navigation, the signed-in company and user, sign-out.
 * Plain HTML forms and links, so every page works without JavaScript.
 */
export function dashboardPage(o: DashboardPageOptions): string {
  const s = o.session;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${o.title} · ${s.company.name} · Cradle</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${o.withCopyScript ? html`<script src="${COPY_SCRIPT_PATH}" defer></script>` : ''}
</head>
<body class="dashboard">
<header class="top"><div class="inner">
<a class="brand" href="/dashboard">Cradle</a>
<nav aria-label="Dashboard">${navFor(s).map((n) => html`<a href="${n.href}" ${n.href === o.current ? html`aria-current="page"` : ''}>${n.label}${n.href === '/reports' && o.attention ? html` <span class="count overdue" title="overdue Article 14 stages">${o.attention}</span>` : ''}</a>`)}</nav>
<div class="account">
<span class="company" title="Signed-in company">${s.company.name} <span class="plan">${label('plan', s.company.plan)}</span></span>
<span class="user"><a href="/account" title="Your account: password, second factor, sessions" ${o.current === '/account' ? html`aria-current="page"` : ''}>${s.user.email}</a> <span class="role">${ROLE_LABELS[s.user.role]}</span></span>
<form method="post" action="/logout" class="inline">${csrfField(s)}<button type="submit" class="link">Sign out</button></form>
</div>
</div></header>
<main>
${o.notice ? html`<div class="notice ${o.notice.kind}" role="${o.notice.kind === 'bad' ? 'alert' : 'status'}">${o.notice.text}</div>` : ''}
${o.body}
</main>
<footer><div class="inner">Cradle: coordinated vulnerability disclosure and CRA compliance.</div></footer>
</body>
</html>
`.value;
}
