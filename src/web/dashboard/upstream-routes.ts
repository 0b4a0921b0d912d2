import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { discoverUpstreamContacts } from '../../modules/upstream/discover-upstream-contacts.js';
import {
  getUpstreamSettings,
  removeGithubToken,
  setCaseReminderDays,
  setGithubToken,
  setMaintainedPackages,
} from '../../modules/upstream/upstream-settings.js';
import { UPSTREAM_CONTACTS_PATH, UPSTREAM_SETTINGS_PATH, upstreamContactsPage, upstreamSettingsPage, type UpstreamFormValues } from './upstream-page.js';
import { bodyText, bodyTrimmed } from '../form-fields.js';
import { issuesSentences } from '../issue-sentences.js';

const NOTICES: Record<string, string> = {
  token: 'The GitHub token was saved, sealed.',
  removed: 'The GitHub token was removed.',
  packages: 'The packages you maintain were saved.',
  reminders: 'The reminder period was saved.',
};

/**
 * The upstream pages (docs/upstream.md), inside the dashboard plugin (sign-in, same-origin and CSRF
 * first; each route's need in route-access.ts). The same verbs as the REST operations; bad input comes
 * back on the form with its message and what was typed (never the token).
 */
export function upstreamDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const { database, config } = app.deps;
  const db = database.db;
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  app.get(UPSTREAM_CONTACTS_PATH, async (req, reply) => {
    const purl = ((req.query as { purl?: unknown } | undefined)?.purl ?? '') as string;
    if (typeof purl !== 'string' || purl.trim() === '') return send(reply, upstreamContactsPage({ session: req.session, purl: '' }));
    try {
      const result = await discoverUpstreamContacts(db, req.session.company.id, purl.trim(), { config });
      return send(reply, upstreamContactsPage({ session: req.session, purl, result }));
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      return send(reply, upstreamContactsPage({ session: req.session, purl, error: 'not a valid package URL (pkg:<type>/<namespace>/<name>@<version>)' }), 400);
    }
  });

  const settingsPage = async (req: FastifyRequest, extra: Partial<Parameters<typeof upstreamSettingsPage>[0]> = {}) =>
    upstreamSettingsPage({ session: req.session, settings: await getUpstreamSettings(db, req.session.company.id, config.githubApiUrl), ...extra });

  app.get(UPSTREAM_SETTINGS_PATH, async (req, reply) => {
    const done = NOTICES[String((req.query as { done?: unknown } | undefined)?.done ?? '')];
    return send(reply, await settingsPage(req, done ? { notice: { kind: 'ok', text: done } } : {}));
  });

  const refused = async (req: FastifyRequest, reply: FastifyReply, e: unknown, name: string, values: UpstreamFormValues) => {
    if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
    const issues = e.extra.issues ?? [];
    const message = issuesSentences(issues) || e.message;
    return send(
      reply,
      await settingsPage(req, { values, errors: { [name]: message }, notice: { kind: 'bad', text: 'Nothing was saved: correct the marked field.' } }),
      400,
    );
  };

  app.post(`${UPSTREAM_SETTINGS_PATH}/github-token`, async (req, reply) => {
    try {
      await setGithubToken(db, ctxOf(req), {
        companyId: req.session.company.id,
        input: { githubToken: bodyText(req.body, 'githubToken').trim() },
        githubApiUrl: config.githubApiUrl,
      });
      return reply.redirect(`${UPSTREAM_SETTINGS_PATH}?done=token`, 303);
    } catch (e) {
      return refused(req, reply, e, 'githubToken', {});
    }
  });

  app.post(`${UPSTREAM_SETTINGS_PATH}/github-token/remove`, async (req, reply) => {
    await removeGithubToken(db, ctxOf(req), { companyId: req.session.company.id, githubApiUrl: config.githubApiUrl });
    return reply.redirect(`${UPSTREAM_SETTINGS_PATH}?done=removed`, 303);
  });

  app.post(`${UPSTREAM_SETTINGS_PATH}/packages`, async (req, reply) => {
    const typed = bodyText(req.body, 'prefixes');
    const prefixes = typed
      .split(/[\r\n]+/)
      .map((l) => l.trim())
      .filter(Boolean);
    try {
      await setMaintainedPackages(db, ctxOf(req), { companyId: req.session.company.id, input: { prefixes }, githubApiUrl: config.githubApiUrl });
      return reply.redirect(`${UPSTREAM_SETTINGS_PATH}?done=packages`, 303);
    } catch (e) {
      return refused(req, reply, e, 'prefixes', { prefixes: typed });
    }
  });

  app.post(`${UPSTREAM_SETTINGS_PATH}/case-reminders`, async (req, reply) => {
    const typed = bodyTrimmed(req.body, 'days');
    // Whole digits become the number the verb takes; anything else goes to it as typed, to be refused.
    const days = /^\d{1,6}$/.test(typed) ? Number(typed) : typed;
    try {
      await setCaseReminderDays(db, ctxOf(req), req.session.company.id, { days }, config.githubApiUrl);
      return reply.redirect(`${UPSTREAM_SETTINGS_PATH}?done=reminders`, 303);
    } catch (e) {
      return refused(req, reply, e, 'days', { days: typed });
    }
  });
}
