import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { getPortalSettings, updatePortalSettings } from '../../modules/companies/portal-settings.js';
import { PORTAL_SETTINGS_PATH, type PortalFormValues, portalSettingsPage } from './portal-settings-page.js';
import { textField } from '../form-fields.js';
import { issueSentence } from '../issue-sentences.js';

const FIELDS = [
  'policyText',
  'policyUrl',
  'safeHarbour',
  'languages',
  'securityEmail',
  'preferredReportFormat',
  'pgpPublicKey',
  'acknowledgeDays',
  'assessDays',
  'resolveDays',
  'acknowledgmentsText',
] as const;

/** A number field: empty clears it; anything else goes to the verb as a number (NaN is refused there with a message). */
const days = (s: string): number | null => (s.trim() === '' ? null : /^\s*\d+\s*$/.test(s) ? Number(s) : Number.NaN);

/**
 * `/settings/portal` (inside the dashboard plugin: sign-in, same-origin and CSRF checked first).
 * The form sends every setting; the same verb as `PATCH /api/v1/portal-settings` checks and saves
 * them in one transaction, or nothing: bad input comes back on the form with a message per field
 * and everything typed kept.
 */
export function portalSettingsDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const { database, config, securityTxtSigner } = app.deps;
  const signing = securityTxtSigner ? { fingerprint: securityTxtSigner.fingerprint, expiresAt: securityTxtSigner.expiresAt } : undefined;
  const db = database.db;
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  app.get(PORTAL_SETTINGS_PATH, async (req, reply) => {
    const saved = (req.query as { saved?: string } | undefined)?.saved;
    const settings = await getPortalSettings(db, config, req.session.company.id);
    return send(
      reply,
      portalSettingsPage({
        session: req.session,
        settings,
        signing,
        notice: saved ? { kind: 'ok', text: 'Saved and published: the portal and security.txt show the new settings now.' } : undefined,
      }),
    );
  });

  app.post(PORTAL_SETTINGS_PATH, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = Object.fromEntries(FIELDS.map((f) => [f, textField(body[f])])) as PortalFormValues;
    const input = {
      policyText: values.policyText,
      policyUrl: values.policyUrl,
      safeHarbour: values.safeHarbour,
      languages: values.languages.split(/[\s,]+/).filter(Boolean),
      securityEmail: values.securityEmail,
      preferredReportFormat: values.preferredReportFormat,
      pgpPublicKey: values.pgpPublicKey,
      responseTimes: { acknowledgeDays: days(values.acknowledgeDays), assessDays: days(values.assessDays), resolveDays: days(values.resolveDays) },
      acknowledgmentsText: values.acknowledgmentsText,
    };
    try {
      await updatePortalSettings(db, config, ctxOf(req), req.session.company.id, input);
      return reply.redirect(`${PORTAL_SETTINGS_PATH}?saved=1`, 303);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      // `responseTimes.acknowledgeDays` is the form's `acknowledgeDays`; `languages.2` is `languages`.
      const errors: Record<string, string> = {};
      for (const i of e.extra.issues ?? []) {
        const parts = i.path.split('.');
        const key = parts[0] === 'responseTimes' ? (parts[1] ?? 'acknowledgeDays') : (parts[0] ?? '');
        errors[key] ??= issueSentence({ path: key, message: i.message });
      }
      const settings = await getPortalSettings(db, config, req.session.company.id);
      const count = Object.keys(errors).length;
      return send(
        reply,
        portalSettingsPage({
          session: req.session,
          settings,
          signing,
          values,
          errors,
          notice: { kind: 'bad', text: `Nothing was saved: ${count === 1 ? 'one field needs' : `${count} fields need`} correcting (marked below).` },
        }),
        400,
      );
    }
  });
}
