import { SITE, type TestApp } from './app.js';

/** The CSRF token of a dashboard page's forms. */
export const csrfOf = (body: string): string => /name="_csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? '';

/** A signed-in browser stand-in: GET pages and POST forms (with the page's CSRF token unless told not to). */
export function dashboardClient(t: TestApp, cookie: string, host = SITE) {
  const page = (url: string) => t.app.inject({ url, headers: { host, cookie } });
  const form = async (url: string, fields: Record<string, string | string[]>, withCsrf = true) => {
    const p = new URLSearchParams();
    if (withCsrf) p.append('_csrf', csrfOf((await page('/dashboard')).body));
    for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
    return t.app.inject({ method: 'POST', url, headers: { host, cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: p.toString() });
  };
  return { page, form };
}
