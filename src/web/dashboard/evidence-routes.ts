import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { download } from '../../modules/operations/document-body.js';
import { gunzip } from '../../kernel/evidence-store.js';
import { countOpenFindings } from '../../modules/findings/count-findings.js';
import { ListFindingsFilter } from '../../modules/findings/findings.schemas.js';
import { listFindings } from '../../modules/findings/list-findings.js';
import { getProductByIdentifier } from '../../modules/products/get-product.js';
import { listProducts } from '../../modules/products/list-products.js';
import { getSbomDiff } from '../../modules/sboms/get-sbom-diff.js';
import { getSbom, getSbomDocument } from '../../modules/sboms/get-sbom.js';
import { latestSboms } from '../../modules/sboms/latest-sboms.js';
import { listSbomComponents } from '../../modules/sboms/list-sbom-components.js';
import { listSboms } from '../../modules/sboms/list-sboms.js';
import { EVIDENCE_PATH, evidenceOverviewPage, sbomPage, sbomVersionsPage } from './evidence-pages.js';
import { findingsPage } from './findings-page.js';
import { evidenceUploadRoutes, UploadDone } from './evidence-upload-routes.js';
import { optionalField } from '../form-fields.js';

const VERSIONS_PER_PAGE = 20;

/** The overview's notice after an upload. */
const uploadedText = (d: UploadDone): string =>
  d.done === 'sbom'
    ? `SBOM uploaded for ${d.product}: version ${d.version ?? '?'}.`
    : `Scan uploaded for ${d.product}: ${d.new ?? 0} new, ${d.fixed ?? 0} fixed, ${d.reopened ?? 0} reopened, ${d.unchanged ?? 0} unchanged findings.`;
const ROWS_PER_PAGE = 50;

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);
/** Query values of a GET form: empty fields mean "any". */
export const filled = (q: unknown): Record<string, unknown> =>
  Object.fromEntries(Object.entries((q ?? {}) as Record<string, unknown>).filter(([, v]) => v !== ''));
export const Offset = z.coerce.number().int().min(0).max(10_000_000).catch(0);
const offsetOf = (q: unknown): number => Offset.parse((q as { offset?: unknown } | undefined)?.offset ?? 0);

/**
 * The dashboard's evidence pages (registered inside the dashboard plugin, so its session check
 * applies): SBOM versions per product with their diff, one SBOM's components, findings, and the
 * SBOM and SARIF uploads (evidence-upload-routes.ts).
 */
export async function evidenceRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  const overview = async (req: FastifyRequest, reply: FastifyReply, status: number, o: Parameters<typeof evidenceOverviewPage>[2]) => {
    const companyId = req.session.company.id;
    const [products, latest, open] = await Promise.all([listProducts(db, companyId), latestSboms(db, companyId), countOpenFindings(db, companyId)]);
    const rows = products.map((product) => ({ product, latest: latest.get(product.identifier), open: open.get(product.identifier) }));
    return sendHtml(reply, evidenceOverviewPage(req.session, rows, o), status);
  };

  app.get(EVIDENCE_PATH, async (req, reply) => {
    const done = UploadDone.safeParse(req.query);
    if (done.success) return overview(req, reply, 200, { notice: { kind: 'ok', text: uploadedText(done.data) }, chosen: done.data.product });
    // `?product=` (a product page's "upload" link) chooses the product in both forms.
    const product = (req.query as { product?: unknown } | undefined)?.product;
    return overview(req, reply, 200, { chosen: optionalField(product) });
  });
  // Uploads: their own child (the multipart parser and an early sign-in check live there only).
  await app.register(evidenceUploadRoutes, {
    refused: (req, reply, r) => overview(req, reply, r.status, { notice: { kind: 'bad', text: r.text }, chosen: r.values.product }),
  });

  app.get<{ Querystring: { product?: string } }>(`${EVIDENCE_PATH}/sboms`, async (req, reply) => {
    const companyId = req.session.company.id;
    const product = await getProductByIdentifier(db, companyId, String(req.query.product ?? ''));
    const offset = offsetOf(req.query);
    const page = await listSboms(db, companyId, { product: product.identifier }, { limit: VERSIONS_PER_PAGE, offset });
    return sendHtml(reply, sbomVersionsPage(req.session, product, page, offset, VERSIONS_PER_PAGE));
  });

  app.get<{ Params: { id: string } }>(`${EVIDENCE_PATH}/sboms/:id`, async (req, reply) => {
    const companyId = req.session.company.id;
    const sbom = await getSbom(db, companyId, req.params.id);
    const offset = offsetOf(req.query);
    const [diff, components] = await Promise.all([
      sbom.previousId ? getSbomDiff(db, companyId, sbom.id) : Promise.resolve(null),
      listSbomComponents(db, companyId, sbom.id, { limit: ROWS_PER_PAGE, offset }),
    ]);
    return sendHtml(reply, sbomPage(req.session, sbom, diff, components, offset, ROWS_PER_PAGE));
  });

  app.get<{ Params: { id: string } }>(`${EVIDENCE_PATH}/sboms/:id/document`, async (req, reply) => {
    const doc = await getSbomDocument(db, req.session.company.id, req.params.id);
    const r = download({ ...doc, body: await gunzip(doc.body) });
    return reply
      .code(r.status)
      .headers(r.headers ?? {})
      .type(r.contentType ?? 'application/octet-stream')
      .send(r.body);
  });

  app.get(`${EVIDENCE_PATH}/findings`, async (req, reply) => {
    const companyId = req.session.company.id;
    const { offset: _o, ...raw } = filled(req.query);
    const parsed = ListFindingsFilter.safeParse(raw);
    const filter = parsed.success ? parsed.data : {};
    const offset = offsetOf(req.query);
    const [products, page] = await Promise.all([listProducts(db, companyId), listFindings(db, companyId, filter, { limit: ROWS_PER_PAGE, offset })]);
    const error = parsed.success ? undefined : 'Some filters were invalid and were ignored.';
    return sendHtml(reply, findingsPage(req.session, { filter, products, page, offset, limit: ROWS_PER_PAGE, error }), parsed.success ? 200 : 400);
  });
}
