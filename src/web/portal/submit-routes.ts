import type { FastifyInstance, FastifyReply } from 'fastify';
import { isUnstorableText } from '../../kernel/db-errors.js';
import { portalUrl } from '../../config.js';
import { ackAddressLimited, countHit, DEFAULT_INTAKE_RATE_LIMITS, INTAKE_BODY_LIMITS, rateLimited } from '../../http/intake-limits.js';
import { requestContext } from '../../http/request-context.js';
import { newId, randomHex } from '../../kernel/ids.js';
import { toFieldIssues } from '../../kernel/validate.js';
import { issueSentence } from '../issue-sentences.js';
import { isSafeMailbox } from '../../modules/mail/mail-header.js';
import { ReportFields } from '../../modules/reports/reports.schemas.js';
import { listProducts } from '../../modules/products/list-products.js';
import { confirmationPage } from './report-pages.js';
import { FORM_FIELDS, type FormState, type FormValues, HONEYPOT_FIELD, reportFormPage, UPDATES_FIELD } from './report-form-page.js';

const HTML = 'text/html; charset=utf-8';

/** The form's labels: refusals name the field as the researcher saw it. */
const LABELS: Record<string, string> = {
  description: 'Description',
  productName: 'Affected product',
  vulnerabilityType: 'Type of vulnerability',
  stepsToReproduce: 'Steps to reproduce',
  impact: 'Impact',
  contactEmail: 'Your e-mail address',
  pgpKey: 'Your OpenPGP public key',
};

/** The form's fields as strings; anything else a client sends (arrays from repeated names) is ignored. */
function formValues(body: unknown): FormValues {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return Object.fromEntries(FORM_FIELDS.flatMap((f) => (typeof b[f] === 'string' ? [[f, b[f]]] : []))) as FormValues;
}

/** `GET/POST {portal_url}/submit` (docs/intake.md "The report form"). */
export async function portalSubmitRoutes(app: FastifyInstance): Promise<void> {
  const { config, database, rateLimiter } = app.deps;
  const policy = app.deps.rateLimits?.reportForm ?? DEFAULT_INTAKE_RATE_LIMITS.reportForm;
  const ackPolicy = app.deps.rateLimits?.ackAddress ?? DEFAULT_INTAKE_RATE_LIMITS.ackAddress;

  const renderForm = async (companyId: string, reply: FastifyReply, status: number, s: FormState, checked = false) => {
    const products = (await listProducts(database.db, companyId)).filter((p) => !p.archivedAt).map((p) => p.name);
    const updates = { offered: config.mail !== undefined, checked };
    return reply
      .code(status)
      .type(HTML)
      .send(reportFormPage(reply.request.portalCompany, [...new Set(products)], { ...s, updates }));
  };

  app.get('/submit', async (req, reply) => renderForm(req.portalCompany.id, reply, 200, { values: {}, errors: {} }));

  app.post('/submit', { bodyLimit: INTAKE_BODY_LIMITS.reportForm }, async (req, reply) => {
    const c = req.portalCompany;
    const values = formValues(req.body);
    const wantsUpdates = config.mail !== undefined && (req.body as Record<string, unknown> | undefined)?.[UPDATES_FIELD] === 'on';
    const parsed = ReportFields.safeParse(values);
    const errors: Record<string, string> = {};
    if (!parsed.success) for (const i of toFieldIssues(parsed.error)) errors[i.path] ??= issueSentence(i, LABELS);
    if (wantsUpdates && !values.contactEmail) errors.contactEmail ??= 'Your e-mail address is needed for e-mail updates (or untick them)';
    else if (wantsUpdates && parsed.success && !isSafeMailbox(values.contactEmail ?? ''))
      errors.contactEmail ??= 'Your e-mail address must be one plain address such as name@example.org for e-mail updates';
    if (!parsed.success || Object.keys(errors).length > 0) return renderForm(c.id, reply, 400, { values, errors }, wantsUpdates);
    const d = await countHit(rateLimiter, policy, req, reply);
    // The destination's budget after the client's: a refusal of either keeps the text (a person) or is problem+json (a script).
    const toAddress = d.allowed && wantsUpdates ? await rateLimiter.hit(ackPolicy, (values.contactEmail ?? '').toLowerCase()) : undefined;
    if (!d.allowed || (toAddress && !toAddress.allowed)) {
      const err = d.allowed && toAddress ? ackAddressLimited(toAddress) : rateLimited(d, 'reports');
      if (!req.headers.accept?.includes('text/html')) throw err;
      reply.header('retry-after', String(err.extra.retryAfterSeconds));
      return renderForm(c.id, reply, 429, { values, errors: {}, notice: `${err.message}. Your text is kept below.` }, wantsUpdates);
    }
    const portal = portalUrl(config, c.slug);
    const body = req.body as Record<string, unknown>;
    if (typeof body[HONEYPOT_FIELD] === 'string' && body[HONEYPOT_FIELD] !== '') {
      // Indistinguishable from success for the bot; nothing is stored.
      req.log.info({ companyId: c.id }, 'report form honeypot filled; nothing filed');
      const fake = { ...parsed.data, submissionId: newId(), createdAt: new Date().toISOString() };
      return reply.type(HTML).send(confirmationPage(c, fake, `${portal}/status/${randomHex(32)}`));
    }
    const filed = await app.reportFiler
      .file({
        ctx: requestContext(req, { type: 'public' }),
        company: c,
        fields: parsed.data,
        source: 'portal_form',
        ...(wantsUpdates ? { researcherUpdates: true } : {}),
      })
      .catch((e: unknown) => {
        // Text the database cannot store (a NUL character, an unpaired surrogate) is the sender's
        // to fix: the form comes back with what was typed, like any other refusal.
        if (isUnstorableText(e)) return undefined;
        throw e;
      });
    if (!filed) {
      const notice = 'Your text contains a character that cannot be stored (such as NUL, U+0000): remove it and send again. Your text is kept below.';
      return renderForm(c.id, reply, 400, { values, errors: {}, notice }, wantsUpdates);
    }
    const { report, statusToken } = filed;
    return reply.type(HTML).send(confirmationPage(c, report, `${portal}/status/${statusToken}`));
  });
}
