import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { type AppError, isAppError } from '../../kernel/errors.js';
import { craFloors } from '../../modules/retention/cra-floor.js';
import { listErasures, recordErasure } from '../../modules/retention/erase-researcher.js';
import { listHolds, placeHold, releaseHold } from '../../modules/retention/legal-holds.js';
import { getRetentionPolicy, updateRetentionPolicy } from '../../modules/retention/retention-policy.js';
import { previewRetention, runRetention } from '../../modules/retention/retention-run.js';
import { type HoldFormValues, RETENTION_PATH, type RetentionFormValues, type RetentionPageData, retentionPage } from './retention-page.js';
import { bodyText } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';

/** A days field: empty keeps (null); anything else goes to the verb as a number (a non-number is refused there with a message). */
const days = (s: string): number | null => (s.trim() === '' ? null : /^\s*\d+\s*$/.test(s) ? Number(s) : Number.NaN);
const fieldErrors = (e: AppError): Record<string, string> => {
  const out: Record<string, string> = {};
  Object.assign(out, fieldSentences(e.extra.issues ?? []));
  return out;
};

/**
 * `/settings/retention` (inside the dashboard plugin: sign-in, same-origin and CSRF checked first;
 * the retention operations ask for an administrator, and every verb checks the role again). Bad input comes
 * back on the page with the typed values and a message per field.
 */
export function retentionDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const { database, config } = app.deps;
  const db = database.db;

  const render = async (req: FastifyRequest, reply: FastifyReply, extra: Partial<RetentionPageData> = {}, status = 200) => {
    const ctx = ctxOf(req);
    const companyId = req.session.company.id;
    const [policy, run, holds, erasures, floors] = await Promise.all([
      getRetentionPolicy(db, companyId),
      previewRetention(db, ctx, companyId),
      listHolds(db, ctx, companyId),
      listErasures(db, ctx, companyId),
      craFloors(db, companyId),
    ]);
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(retentionPage({ session: req.session, policy, run, holds, erasures, floors, ...extra }));
  };
  const notices: Record<string, string> = {
    saved: 'Retention policy saved.',
    ran: 'Retention rules applied; the audit log has the counts.',
    held: 'Legal hold placed.',
    released: 'Legal hold released; erasure requests that waited for it are applied.',
    erased: 'Erasure request recorded.',
  };
  const done = (reply: FastifyReply, what: keyof typeof notices) => reply.redirect(`${RETENTION_PATH}?done=${what}`, 303);
  /** Runs a form's verb; a VALIDATION or NOT_FOUND refusal comes back on the page with the typed values. */
  const attempt = async (req: FastifyRequest, reply: FastifyReply, fn: () => Promise<unknown>, what: keyof typeof notices, form: RetentionPageData['form']) => {
    try {
      await fn();
      return done(reply, what);
    } catch (e) {
      if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'NOT_FOUND' && e.code !== 'CONFLICT')) throw e;
      const errors = e.code === 'VALIDATION' ? fieldErrors(e) : {};
      if (Object.keys(errors).length === 0) errors[what === 'erased' ? 'reportId' : what === 'held' ? 'target' : 'form'] = e.message;
      return render(
        req,
        reply,
        { form: { ...form, errors }, notice: { kind: 'bad', text: `Not saved: ${Object.values(errors)[0] ?? e.message}` } },
        e.code === 'NOT_FOUND' ? 404 : e.code === 'CONFLICT' ? 409 : 400,
      );
    }
  };

  app.get(RETENTION_PATH, async (req, reply) => {
    const key = (req.query as { done?: string } | undefined)?.done ?? '';
    return render(req, reply, { notice: key in notices ? { kind: 'ok', text: notices[key] ?? '' } : undefined });
  });

  app.post(RETENTION_PATH, async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const policy: RetentionFormValues = {
      reporterDataDays: bodyText(b, 'reporterDataDays'),
      rejectedBodyDays: bodyText(b, 'rejectedBodyDays'),
      accessRecordDays: bodyText(b, 'accessRecordDays'),
    };
    const input = {
      reporterDataDays: days(policy.reporterDataDays),
      rejectedBodyDays: days(policy.rejectedBodyDays),
      accessRecordDays: days(policy.accessRecordDays),
    };
    return attempt(req, reply, () => updateRetentionPolicy(db, ctxOf(req), req.session.company.id, input), 'saved', { policy, errors: {} });
  });

  app.post(`${RETENTION_PATH}/run`, async (req, reply) => {
    await runRetention(db, ctxOf(req), req.session.company.id);
    return done(reply, 'ran');
  });

  app.post(`${RETENTION_PATH}/holds`, async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const hold: HoldFormValues = { scope: bodyText(b, 'scope'), target: bodyText(b, 'target').trim(), reason: bodyText(b, 'reason') };
    const input = { scope: hold.scope, reason: hold.reason, ...(hold.target ? { target: hold.target } : {}) };
    return attempt(req, reply, () => placeHold(db, ctxOf(req), req.session.company.id, input), 'held', { hold, errors: {} });
  });

  app.post<{ Params: { id: string } }>(`${RETENTION_PATH}/holds/:id/release`, async (req, reply) => {
    await releaseHold(db, ctxOf(req), req.session.company.id, req.params.id);
    return done(reply, 'released');
  });

  app.post(`${RETENTION_PATH}/erasures`, async (req, reply) => {
    const reportId = bodyText(req.body, 'reportId').trim();
    return attempt(req, reply, () => recordErasure(db, ctxOf(req), req.session.company.id, { reportId }, { mail: !!config.mail }), 'erased', {
      reportId,
      errors: {},
    });
  });
}
