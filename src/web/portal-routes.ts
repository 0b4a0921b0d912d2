import type { FastifyInstance } from 'fastify';
import { openRequestScope } from '../db/tenant-scope.js';
import { AppError, ErrorCode } from '../kernel/errors.js';
import type { Company } from '../modules/companies/companies.schemas.js';
import { findPortalCompany } from '../modules/companies/portal-company-cache.js';
import { portalErasureRoutes } from './portal/erasure-routes.js';
import { portalFollowUpRoutes } from './portal/follow-up-routes.js';
import { portalCsafRoutes } from './portal/csaf-routes.js';
import { portalInfoRoutes } from './portal/info-routes.js';
import { portalSubmitRoutes } from './portal/submit-routes.js';
import { portalMailStopRoutes } from './portal/mail-stop-routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The company whose portal this request addresses (zone `portal` only). */
    portalCompany: Company;
  }
}

/** Portal pages (zone `portal`): one company's public face at `{slug}.{site host}`. */
export async function portalRoutes(app: FastifyInstance): Promise<void> {
  const { database } = app.deps;
  app.decorateRequest('portalCompany', null as unknown as Company);
  app.addHook('onRequest', async (req) => {
    const zone = req.zone;
    // The cache reads as system: the request's scope opens only once its company is known.
    const company = zone.kind === 'portal' ? await findPortalCompany(database.db, zone.slug) : undefined;
    if (!company) throw new AppError(ErrorCode.NOT_FOUND, `no portal exists at ${req.hostname}; check the address`);
    // Offboarding (docs/backup.md): a company whose deletion is pending takes no reports and shows nothing.
    if (company.deletionDueAt) throw new AppError(ErrorCode.FORBIDDEN, `the portal at ${req.hostname} is suspended and takes no reports`);
    req.portalCompany = company;
    openRequestScope(company.id);
  });
  await app.register(portalInfoRoutes);
  await app.register(portalSubmitRoutes);
  await app.register(portalFollowUpRoutes);
  await app.register(portalErasureRoutes);
  await app.register(portalCsafRoutes);
  await app.register(portalMailStopRoutes);
}
