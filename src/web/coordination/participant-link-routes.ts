import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { siteUrl } from '../../config.js';
import { countHit, rateLimited } from '../../http/intake-limits.js';
import { requestContext } from '../../http/request-context.js';
import { AppError, ErrorCode, isAppError } from '../../kernel/errors.js';
import type { RateLimitPolicy } from '../../kernel/rate-limit.js';
import type { ParticipantRow } from '../../modules/cases/case-store.js';
import { acknowledgeCase, answerEmbargo, participantByToken, postSharedMessage, sharedCase } from '../../modules/cases/shared-thread.js';
import { attachmentDownload } from '../../modules/cases/case-attachments.operations.js';
import { readAttachment } from '../../modules/cases/case-attachments.js';
import { asSystem } from '../../db/tenant-scope.js';
import { acceptAttachmentForms, formAttachments } from '../attachment-forms.js';
import { page } from '../layout.js';
import { MESSAGE_LABELS, type SharedCaseState, sharedCaseBody } from './shared-case-page.js';
import { textField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';

const HTML = 'text/html; charset=utf-8';

/** Answers through a participant link: per address (IPv6 per /64). */
export const PARTICIPANT_LINK_LIMIT: RateLimitPolicy = { name: 'participant-link', limit: 20, windowMs: 10 * 60_000 };

type Req = FastifyRequest<{ Params: { token: string } }>;

/**
 * `{site_url}/coordination/{token}`: the page behind a case participant's private link (issue 34).
 * The token opens that participant's shared thread of that one case and nothing else; its forms
 * post to the capability URL itself (no cookie is involved, so the token defeats cross-site forgery;
 * a foreign Origin is refused anyway).
 */
export async function participantLinkRoutes(app: FastifyInstance): Promise<void> {
  const { config, database, rateLimiter } = app.deps;
  const db = database.db;
  const base = (req: Req) => `/coordination/${req.params.token}`;

  const render = async (req: Req, reply: FastifyReply, status: number, p: ParticipantRow, st?: SharedCaseState) => {
    const s = await sharedCase(db, p);
    return reply
      .code(status)
      .header('x-robots-tag', 'noindex, nofollow')
      .type(HTML)
      .send(
        page({
          title: s.title,
          brand: s.from,
          body: sharedCaseBody(s, base(req), st),
        }),
      );
  };

  const sameOrigin = (req: FastifyRequest) => {
    const origin = req.headers.origin;
    if ((origin !== undefined && origin !== 'null' && origin !== siteUrl(config)) || req.headers['sec-fetch-site'] === 'cross-site')
      throw new AppError(ErrorCode.FORBIDDEN, "answers are accepted only from this case's own page");
  };
  // A message with files: the origin and the link are checked before a byte of a file is read.
  await acceptAttachmentForms(app, async (req) => {
    sameOrigin(req);
    await participantByToken(db, (req.params as { token?: string }).token ?? '');
  });

  /** Resolves the token, checks the origin and the address limit, then runs one answer. */
  const answer = async (
    req: Req,
    reply: FastifyReply,
    act: (p: ParticipantRow, body: Record<string, unknown>) => Promise<void>,
    draft: (b: Record<string, unknown>) => SharedCaseState,
  ) => {
    sameOrigin(req);
    const p = await participantByToken(db, req.params.token);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const hit = await countHit(rateLimiter, PARTICIPANT_LINK_LIMIT, req, reply);
    if (!hit.allowed) {
      reply.header('retry-after', String(hit.retryAfterSeconds));
      return render(req, reply, 429, p, { ...draft(body), notice: { kind: 'bad', text: `${rateLimited(hit, 'answers').message}. Your text is kept below.` } });
    }
    try {
      await act(p, body);
    } catch (e) {
      if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'CONFLICT')) throw e;
      const errors = fieldSentences(e.extra.issues ?? [], MESSAGE_LABELS);
      return render(req, reply, e.code === 'CONFLICT' ? 409 : 400, p, { ...draft(body), errors, notice: { kind: 'bad', text: e.message } });
    }
    return reply.redirect(base(req), 303);
  };

  app.get<{ Params: { token: string } }>('/coordination/:token', async (req, reply) => render(req, reply, 200, await participantByToken(db, req.params.token)));

  // A file of this participant's own thread, as a download (attachment, nosniff, the strict CSP of every answer); any other is not found.
  app.get<{ Params: { token: string; attachmentId: string } }>('/coordination/:token/attachments/:attachmentId', async (req, reply) => {
    const p = await participantByToken(db, req.params.token);
    const r = attachmentDownload(await asSystem(() => readAttachment(db, p.companyId, p.caseId, req.params.attachmentId, p.id)));
    return reply
      .headers({ ...r.headers, 'x-robots-tag': 'noindex, nofollow' })
      .type(r.contentType ?? 'application/octet-stream')
      .send(r.body);
  });

  app.post<{ Params: { token: string } }>('/coordination/:token/acknowledge', async (req, reply) =>
    answer(
      req,
      reply,
      (p) => acknowledgeCase(db, requestContext(req, { type: 'public' }), p, { kind: 'link' }),
      () => ({}),
    ),
  );

  app.post<{ Params: { token: string } }>('/coordination/:token/embargo', async (req, reply) =>
    answer(
      req,
      reply,
      (p, b) =>
        answerEmbargo(
          db,
          requestContext(req, { type: 'public' }),
          p,
          { kind: 'link' },
          { response: textField(b.response), ...(textField(b.until) ? { until: textField(b.until) } : {}) },
        ),
      (b) => ({ counter: textField(b.until) }),
    ),
  );

  app.post<{ Params: { token: string } }>('/coordination/:token/messages', async (req, reply) =>
    answer(
      req,
      reply,
      async (p, b) => {
        await postSharedMessage(db, requestContext(req, { type: 'public' }), p, { body: textField(b.body) }, formAttachments(req));
      },
      (b) => ({ draft: textField(b.body) }),
    ),
  );
}
