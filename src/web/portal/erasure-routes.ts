import type { FastifyInstance } from 'fastify';
import { portalUrl } from '../../config.js';
import { requestContext } from '../../http/request-context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { getReportStatus } from '../../modules/reports/get-report-status.js';
import { eraseThroughStatusLink } from '../../modules/retention/erase-researcher.js';
import { erasureConfirmPage } from './erasure-page.js';

const HTML = 'text/html; charset=utf-8';

/** `GET/POST {portal_url}/status/{token}/erase`: a researcher's erasure request, with a confirmation step (docs/intake.md). */
export async function portalErasureRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;
  const db = database.db;

  app.get<{ Params: { token: string } }>('/status/:token/erase', async (req, reply) => {
    await getReportStatus(db, req.portalCompany.id, req.params.token);
    return reply
      .header('x-robots-tag', 'noindex, nofollow')
      .type(HTML)
      .send(erasureConfirmPage(req.portalCompany, `/status/${req.params.token}/erase`));
  });

  app.post<{ Params: { token: string } }>('/status/:token/erase', { bodyLimit: 4 * 1024 }, async (req, reply) => {
    const c = req.portalCompany;
    const origin = req.headers.origin;
    if ((origin !== undefined && origin !== 'null' && origin !== portalUrl(config, c.slug)) || req.headers['sec-fetch-site'] === 'cross-site') {
      throw new AppError(ErrorCode.FORBIDDEN, "erasure is accepted only from this portal's own page");
    }
    const report = await getReportStatus(db, c.id, req.params.token);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.confirm !== 'yes') return reply.redirect(`/status/${req.params.token}/erase`, 303);
    // The request's context carries no client address or browser string: nothing recorded about
    // this request may name the researcher again.
    const ctx = { ...requestContext(req, { type: 'public' }), ip: undefined, userAgent: undefined };
    await eraseThroughStatusLink(db, ctx, c.id, report.submissionId, { mail: !!config.mail });
    return reply.redirect(`/status/${req.params.token}#erasure-notice`, 303);
  });
}
