import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { holdEvidenceSlot } from '../../http/evidence-slot.js';
import { requestContext } from '../../http/request-context.js';
import { isAppError } from '../../kernel/errors.js';
import { PROBLEM } from '../../http/problem.js';
import { pushSarif } from '../../modules/findings/push-sarif.js';
import { pushSbom } from '../../modules/sboms/push-sbom.js';
import { EVIDENCE_PATH } from './evidence-pages.js';
import { signedInUploadGate } from './upload-gate.js';
import { textField } from '../form-fields.js';
import { issuesSentences } from '../issue-sentences.js';

export const SBOM_UPLOAD_PATH = `${EVIDENCE_PATH}/sboms`;
export const SARIF_UPLOAD_PATH = `${EVIDENCE_PATH}/findings`;

/** What the overview says after an upload (`/evidence?done=...`; a scan's counts as numbers). */
export const UploadDone = z.object({
  done: z.enum(['sbom', 'sarif']),
  product: z.string().max(255),
  version: z.coerce.number().int().min(1).optional(),
  new: z.coerce.number().int().min(0).optional(),
  fixed: z.coerce.number().int().min(0).optional(),
  reopened: z.coerce.number().int().min(0).optional(),
  unchanged: z.coerce.number().int().min(0).optional(),
});
export type UploadDone = z.infer<typeof UploadDone>;

export type UploadRefusal = { status: number; text: string; values: { product: string; kind: 'sbom' | 'sarif' } };

/**
 * `POST /evidence/sboms` and `POST /evidence/findings`: the same SBOM and SARIF pushes as the API
 * (`pushSbom`, `pushSarif`: read off the event loop, validated against the official schemas), from a
 * file chosen in the dashboard. A child of the dashboard plugin, so its sign-in, CSRF and role checks
 * apply; the multipart body is read only after a first check that a signed-in member whose role may
 * upload sent it from our origin, so an anonymous client cannot make the server buffer a file. At
 * most one file, of at most EVIDENCE_MAX_BYTES (413 beyond).
 */
export async function evidenceUploadRoutes(
  app: FastifyInstance,
  opts: { refused: (req: FastifyRequest, reply: FastifyReply, r: UploadRefusal) => Promise<FastifyReply> },
): Promise<void> {
  const db = app.deps.database.db;
  const maxBytes = app.deps.config.evidenceMaxBytes;
  app.addHook('preValidation', async (req, reply) => {
    const refused = await signedInUploadGate(req, reply);
    if (refused) return refused;
    // The same slot as an API push, before the file is read (docs/evidence.md "Limits").
    holdEvidenceSlot(req, reply, req.session.company.id, maxBytes);
  });
  await app.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: maxBytes, files: 1, fields: 4, parts: 5 } });

  const upload = (path: string, kind: 'sbom' | 'sarif') =>
    app.post(path, async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const product = textField(body.product);
      const file = Buffer.isBuffer(body.document) ? body.document : undefined;
      const refuse = (status: number, text: string) => opts.refused(req, reply, { status, text, values: { product, kind } });
      if (!file || file.length === 0) return refuse(400, `Nothing was uploaded: choose a ${kind === 'sbom' ? 'CycloneDX or SPDX JSON' : 'SARIF 2.1.0'} file.`);
      const ctx = requestContext(req, { type: 'user', id: req.session.user.id });
      try {
        if (kind === 'sbom') {
          const sbom = await pushSbom(db, ctx, req.session.company.id, product, file, { maxBytes });
          return reply.redirect(`${EVIDENCE_PATH}?${new URLSearchParams({ done: 'sbom', product, version: String(sbom.version) })}`, 303);
        }
        const scan = await pushSarif(db, ctx, req.session.company.id, product, file, { maxBytes });
        const counts = { new: scan.new, fixed: scan.fixed, reopened: scan.reopened, unchanged: scan.unchanged };
        return reply.redirect(
          `${EVIDENCE_PATH}?${new URLSearchParams({ done: 'sarif', product, ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, String(v)])) })}`,
          303,
        );
      } catch (e) {
        if (!isAppError(e)) throw e;
        // The first problems are enough to fix the file; the API's answer lists them all.
        const detail = e.extra.issues?.length ? `${e.message} (${issuesSentences(e.extra.issues, {}, 10)})` : e.message;
        return refuse(PROBLEM[e.code].status, `Nothing was stored: ${detail}`);
      }
    });
  upload(SBOM_UPLOAD_PATH, 'sbom');
  upload(SARIF_UPLOAD_PATH, 'sarif');
}
