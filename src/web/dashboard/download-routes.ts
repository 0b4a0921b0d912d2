import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { craOscalCatalog, oscalAssessmentsOf } from '../../modules/compliance/oscal-documents.js';
import { exportCompanyData } from '../../modules/export/export-company.js';
import { knownVulnVex } from '../../modules/known-vulns/vex-documents.js';

export const DOWNLOADS = {
  oscalCatalog: '/compliance/oscal/catalog',
  oscalAssessments: '/compliance/oscal/assessments',
  knownVulnVex: '/known-vulnerabilities/vex',
  companyExport: '/settings/export',
} as const;

/** A JSON document as a file the browser saves (named, never cached). */
const attachment = (reply: FastifyReply, fileName: string, body: unknown, type = 'application/json; charset=utf-8') =>
  reply
    .header('content-disposition', `attachment; filename="${fileName.replace(/[^A-Za-z0-9._-]+/g, '_')}"`)
    .type(type)
    .send(typeof body === 'string' || (body !== null && typeof body === 'object' && 'pipe' in body) ? body : `${JSON.stringify(body, null, 2)}\n`);
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The documents the API gives a key, for the signed-in members who need them without one (inside
 * the dashboard plugin: sign-in and role checked first, route-access.ts): the CRA catalog and the
 * company's assessments as OSCAL (the compliance officer's audit evidence), a product's VEX of its
 * known vulnerabilities (for customers), and the company's whole data export (administrators). Each
 * is the same function the API's operation calls.
 */
export function downloadRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  app.get(DOWNLOADS.oscalCatalog, async (_req, reply) => attachment(reply, 'cra-requirements.oscal.json', craOscalCatalog()));
  app.get<{ Querystring: Record<string, string> }>(DOWNLOADS.oscalAssessments, async (req, reply) => {
    const query = req.query.product ? { product: req.query.product } : {};
    const doc = await oscalAssessmentsOf(db, app.deps.config, req.session.company.id, query);
    return attachment(reply, `${req.session.company.slug}-${req.query.product ?? 'all'}-assessments-${today()}.oscal.json`, doc);
  });
  app.get<{ Querystring: Record<string, string> }>(DOWNLOADS.knownVulnVex, async (req, reply) => {
    const vex = await knownVulnVex(db, req.session.company.id, { product: req.query.product ?? '', ...(req.query.format ? { format: req.query.format } : {}) });
    const suffix = vex.format === 'openvex' ? 'openvex.json' : 'cdx-vex.json';
    return attachment(reply, `${vex.product}-${today()}.${suffix}`, vex.document);
  });
  app.get(DOWNLOADS.companyExport, async (req, reply) =>
    attachment(reply, `${req.session.company.slug}-export-${today()}.json`, await exportCompanyData(db, ctxOf(req), req.session.company.id)),
  );
}
