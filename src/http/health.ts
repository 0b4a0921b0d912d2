import type { FastifyInstance } from 'fastify';
import { AppError, ErrorCode } from '../kernel/errors.js';

/** Probes answer on any Host: orchestrators probe by address, not by the public name. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const { database } = app.deps;
  // Liveness: the process can answer. Never touches the database, so a slow database never restarts us.
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  // Readiness: the database answers and every checked-in migration is applied.
  app.get('/readyz', { logLevel: 'warn' }, async () => {
    if (app.deps.shuttingDown) throw new AppError(ErrorCode.UNAVAILABLE, 'shutting down');
    if (!(await database.ready())) throw new AppError(ErrorCode.UNAVAILABLE, 'database unreachable or migrations not applied');
    return { status: 'ready', database: database.kind };
  });
}
