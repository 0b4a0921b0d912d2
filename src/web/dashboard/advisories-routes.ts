import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { portalUrl } from '../../config.js';
import type { Context } from '../../kernel/context.js';
import { type AppError, isAppError } from '../../kernel/errors.js';
import { advisoryTarget } from '../../modules/advisories/advisories.operations.js';
import { getAdvisoryRow, listAdvisoryRows, toAdvisoryView } from '../../modules/advisories/advisory-rows.js';
import { createAdvisory } from '../../modules/advisories/create-advisory.js';
import { csafFileName } from '../../modules/advisories/csaf-provider.js';
import { previewPublish, publishAdvisory, reviseAdvisory, withdrawAdvisory } from '../../modules/advisories/release-advisory.js';
import { advisoryDocument } from '../../modules/advisories/released-documents.js';
import { trackingIdOf } from '../../modules/advisories/render-csaf.js';
import { updateAdvisory } from '../../modules/advisories/update-advisory.js';
import { listProducts } from '../../modules/products/list-products.js';
import { getReport } from '../../modules/reports/get-report.js';
import { advisoriesPage } from './advisories-page.js';
import { formErrors, parseAdvisoryForm, postedValues } from './advisory-form.js';
import { advisoryPage, advisoryPath, type AdvisoryPageData } from './advisory-page.js';
import { advisoryPreviewPage } from './advisory-preview-page.js';
import { bodyText } from '../form-fields.js';
import { issuesSentences } from '../issue-sentences.js';

type IdReq = FastifyRequest<{ Params: { id: string } }>;
const HTML = 'text/html; charset=utf-8';
const DONE: Record<string, string> = {
  created:
    'Draft created from your triage facts. Write the text in your own words (the report is below for reference), check the products, then preview and publish.',
  saved: 'Advisory saved.',
  published: 'Published: version 1 is on the portal and in its CSAF provider.',
  revised: 'Revision released.',
  withdrawn: 'Advisory withdrawn.',
};
/** A refusal the page shows: the verb's message, and each field's problem when it named them. */
const refusal = (e: AppError): string => (e.extra.issues?.length ? `${e.message.split(':')[0]}: ${issuesSentences(e.extra.issues)}` : e.message);
const STATUS: Partial<Record<AppError['code'], number>> = { VALIDATION: 400, CONFLICT: 409, UNPROCESSABLE: 422 };

/**
 * `/advisories` in the dashboard (sign-in, same origin, CSRF and role checked first, route-access.ts):
 * the list, a draft from a fixed report, the edit form, publish, revise, withdraw, and the CSAF and
 * VEX documents (released bytes, or a draft's preview). Each action is the API's verb; a refusal
 * re-renders the page with its reason and changes nothing.
 */
export function advisoryDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const target = (req: FastifyRequest) => advisoryTarget(db, app.deps.config, req.session.company.id);

  const list = async (req: FastifyRequest, reply: FastifyReply, status = 200, notice?: { kind: 'bad'; text: string }) => {
    const t = await target(req);
    const rows = await listAdvisoryRows(db, t.company.id);
    const portal = portalUrl(app.deps.config, t.company.slug);
    return reply
      .code(status)
      .type(HTML)
      .send(
        advisoriesPage(
          req.session,
          rows.map((r) => toAdvisoryView(r, t.distributionUrl)),
          portal,
          notice,
        ),
      );
  };
  app.get('/advisories', async (req, reply) => list(req, reply));

  const render = async (req: IdReq, reply: FastifyReply, status: number, extra: Partial<AdvisoryPageData> = {}) => {
    const t = await target(req);
    const [row, products] = await Promise.all([getAdvisoryRow(db, t.company.id, req.params.id), listProducts(db, t.company.id)]);
    const page = advisoryPage({
      session: req.session,
      advisory: toAdvisoryView(row, t.distributionUrl),
      products: products.filter((p) => !p.archivedAt).map((p) => ({ identifier: p.identifier, name: p.name })),
      report: await getReport(db, t.company.id, row.reportId),
      ...extra,
    });
    return reply.code(status).type(HTML).send(page);
  };

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>('/advisories/:id', async (req, reply) => {
    const text = DONE[req.query.done ?? ''];
    return render(req, reply, 200, text ? { notice: { kind: 'ok', text } } : {});
  });

  // From the report page: a draft prefilled from the report (offered only for a fixed or disclosed
  // report without one, so a refusal means the report changed meanwhile: the list says why).
  app.post('/advisories', async (req, reply) => {
    const t = await target(req);
    try {
      const a = await createAdvisory(db, ctxOf(req), t.company, t.distributionUrl, { vulnerabilityId: bodyText(req.body, 'vulnerabilityId') });
      return reply.redirect(`${advisoryPath(a.id)}?done=created`, 303);
    } catch (e) {
      if (!isAppError(e) || e.code === 'NOT_FOUND') throw e;
      return list(req, reply, STATUS[e.code] ?? 403, { kind: 'bad', text: `No advisory was created: ${refusal(e)}` });
    }
  });

  app.post<{ Params: { id: string } }>('/advisories/:id', async (req, reply) => {
    const values = postedValues(req.body);
    const parsed = parseAdvisoryForm(values);
    const bad = (errors: Record<string, string>, text: string, status: number) => render(req, reply, status, { values, errors, notice: { kind: 'bad', text } });
    if (parsed.issues.length) return bad(formErrors(parsed.issues, parsed), 'Nothing was saved: correct the marked fields.', 400);
    try {
      const t = await target(req);
      await updateAdvisory(db, ctxOf(req), t.company, t.distributionUrl, req.params.id, parsed.input);
    } catch (e) {
      if (!isAppError(e) || e.code === 'NOT_FOUND') throw e;
      const status = STATUS[e.code] ?? 403;
      return bad(formErrors(e.extra.issues ?? [], parsed), e.code === 'VALIDATION' ? 'Nothing was saved: correct the marked fields.' : refusal(e), status);
    }
    return reply.redirect(`${advisoryPath(req.params.id)}?done=saved`, 303);
  });

  // The preview is the way to Publish: the exact public page and CSAF document of the release.
  const preview = async (req: IdReq, reply: FastifyReply, status = 200, notice?: { kind: 'bad'; text: string }) => {
    const t = await target(req);
    const p = await previewPublish(db, t, req.params.id);
    return reply
      .code(status)
      .type(HTML)
      .send(advisoryPreviewPage(req.session, toAdvisoryView(await getAdvisoryRow(db, t.company.id, req.params.id), t.distributionUrl), p, notice));
  };
  app.get<{ Params: { id: string } }>('/advisories/:id/preview', async (req, reply) => {
    try {
      return await preview(req, reply);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'CONFLICT') throw e;
      return render(req, reply, 409, { notice: { kind: 'bad', text: `No preview: ${e.message}` } });
    }
  });

  const release = (action: 'publish' | 'revise' | 'withdraw', done: string) =>
    app.post<{ Params: { id: string } }>(`/advisories/:id/${action}`, async (req, reply) => {
      try {
        const t = await target(req);
        const ctx = ctxOf(req);
        if (action === 'publish') await publishAdvisory(db, ctx, t, req.params.id, { previewedAt: bodyText(req.body, 'previewedAt') });
        else if (action === 'revise') await reviseAdvisory(db, ctx, t, req.params.id, { summary: bodyText(req.body, 'summary') });
        else await withdrawAdvisory(db, ctx, t, req.params.id, { reason: bodyText(req.body, 'reason') });
      } catch (e) {
        if (!isAppError(e) || e.code === 'NOT_FOUND') throw e;
        return render(req, reply, STATUS[e.code] ?? 403, { notice: { kind: 'bad', text: `Not ${done}: ${refusal(e)}` } });
      }
      return reply.redirect(`${advisoryPath(req.params.id)}?done=${done}`, 303);
    });
  release('publish', 'published');
  release('revise', 'revised');
  release('withdraw', 'withdrawn');

  for (const kind of ['csaf', 'vex'] as const) {
    app.get<{ Params: { id: string } }>(`/advisories/:id/${kind}`, async (req, reply) => {
      const t = await target(req);
      const row = await getAdvisoryRow(db, t.company.id, req.params.id);
      const { content } = await advisoryDocument(db, t.company, t.namespace, req.params.id, kind);
      return reply
        .header('content-disposition', `attachment; filename="${csafFileName(trackingIdOf(row.trackingId, kind))}"`)
        .type('application/json; charset=utf-8')
        .send(content);
    });
  }
}
