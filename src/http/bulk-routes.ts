import { asSystem } from '../db/tenant-scope.js';
import type { FastifyInstance } from 'fastify';
import { sqlState } from '../kernel/db-errors.js';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { parseBulkEnvelope } from '../modules/reports/bulk-envelope.js';
import { fileReportBatch } from '../modules/reports/file-report-batch.js';
import { countHit, DEFAULT_INTAKE_RATE_LIMITS, INTAKE_BODY_LIMITS, rateLimited } from './intake-limits.js';
import { requestContext } from './request-context.js';

/** `POST {site_url}/api/portal/batch`: anonymous filing into up to 20 portals at once. */
export async function bulkRoutes(app: FastifyInstance): Promise<void> {
  const { database, rateLimiter } = app.deps;
  const policy = app.deps.rateLimits?.bulk ?? DEFAULT_INTAKE_RATE_LIMITS.bulk;

  app.post('/api/portal/batch', {
    bodyLimit: INTAKE_BODY_LIMITS.bulk,
    // Counted before the body is parsed, so malformed, oversized and mistyped requests count too.
    onRequest: async (req, reply) => {
      const d = await countHit(rateLimiter, policy, req, reply);
      if (!d.allowed) throw rateLimited(d, 'bulk batches');
    },
    handler: async (req, reply) => {
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type)) {
        throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'send the batch as application/json');
      }
      const items = parseBulkEnvelope(req.body);
      // One batch files to many companies (each item's company is resolved from its slug):
      // Cradle's own cross-company work, which writes reports and reads nothing back to the caller.
      const outcome = await asSystem(() =>
        fileReportBatch(database.db, app.reportFiler, requestContext(req, { type: 'public' }), items, {
          // Only the SQLSTATE: a driver error's message carries the query parameters, i.e. report text.
          onWriteError: (index, err) => req.log.error({ index, sqlState: sqlState(err) }, 'bulk item could not be filed'),
        }),
      );
      return reply.code(200).send(outcome);
    },
  });
}
