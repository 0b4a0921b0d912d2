import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { portalUrl } from '../../config.js';
import { countHit, rateLimited } from '../../http/intake-limits.js';
import { requestContext } from '../../http/request-context.js';
import { AppError, ErrorCode, isAppError } from '../../kernel/errors.js';
import type { RateLimitPolicy } from '../../kernel/rate-limit.js';
import { listMessages, postMessage } from '../../modules/messages/messages.js';
import { erasureOfReport } from '../../modules/retention/erase-researcher.js';
import { getReportStatus } from '../../modules/reports/get-report-status.js';
import { type FollowUpState, followUpPage } from './follow-up-page.js';
import { textField } from '../form-fields.js';

const HTML = 'text/html; charset=utf-8';

/** Messages from the researcher: per address (IPv6 per /64) and per report, whichever bites first. */
export const FOLLOW_UP_LIMITS = {
  perAddress: { name: 'follow-up', limit: 10, windowMs: 10 * 60_000 } satisfies RateLimitPolicy,
  perReport: { name: 'follow-up-report', limit: 30, windowMs: 60 * 60_000 } satisfies RateLimitPolicy,
};

/** `GET/POST {portal_url}/status/{token}`: the researcher's private status and follow-up page. */
export async function portalFollowUpRoutes(app: FastifyInstance): Promise<void> {
  const { config, database, rateLimiter } = app.deps;
  const db = database.db;

  const render = async (req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply, status: number, st?: FollowUpState) => {
    const c = req.portalCompany;
    const report = await getReportStatus(db, c.id, req.params.token);
    const messages = await listMessages(db, c.id, report.submissionId);
    const erasure = await erasureOfReport(db, c.id, report.submissionId);
    // A capability URL: keep it out of search indexes (Referer is already suppressed globally).
    return reply
      .code(status)
      .header('x-robots-tag', 'noindex, nofollow')
      .type(HTML)
      .send(followUpPage(c, report, messages, `/status/${req.params.token}`, st, erasure));
  };

  app.get<{ Params: { token: string } }>('/status/:token', async (req, reply) => render(req, reply, 200));

  app.post<{ Params: { token: string } }>('/status/:token', { bodyLimit: 64 * 1024 }, async (req, reply) => {
    const c = req.portalCompany;
    // No cookie is involved, so the token in the path already defeats cross-site forgery; a
    // foreign Origin is refused anyway, so a leaked link cannot be driven from another site.
    const origin = req.headers.origin;
    if ((origin !== undefined && origin !== 'null' && origin !== portalUrl(config, c.slug)) || req.headers['sec-fetch-site'] === 'cross-site') {
      throw new AppError(ErrorCode.FORBIDDEN, "messages are accepted only from this portal's own page");
    }
    const report = await getReportStatus(db, c.id, req.params.token);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const draft = textField(body.body);
    const address = await countHit(rateLimiter, FOLLOW_UP_LIMITS.perAddress, req, reply);
    const perReport = address.allowed ? await rateLimiter.hit(FOLLOW_UP_LIMITS.perReport, report.submissionId) : address;
    if (!perReport.allowed) {
      const err = rateLimited(perReport, 'messages');
      reply.header('retry-after', String(perReport.retryAfterSeconds));
      return render(req, reply, 429, { draft, notice: { kind: 'bad', text: `${err.message}. Your text is kept below.` } });
    }
    try {
      // After an erasure nothing recorded about the researcher's requests may name them again (docs/retention.md "Erasure").
      const erased = (await erasureOfReport(db, c.id, report.submissionId)) !== undefined;
      const ctx = requestContext(req, { type: 'public' });
      await postMessage(db, erased ? { ...ctx, ip: undefined, userAgent: undefined } : ctx, c.id, report.submissionId, 'researcher', { body: draft });
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      return render(req, reply, 400, { draft, error: (e.extra.issues?.[0]?.message ?? e.message).replace(/^body/, 'Your message') });
    }
    // Post/redirect/get: a reload does not send the message twice.
    return reply.redirect(`/status/${req.params.token}#thread`, 303);
  });
}
