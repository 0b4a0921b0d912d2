import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { portalUrl } from '../../config.js';
import { notFound } from '../../kernel/errors.js';
import {
  changesCsv,
  csafFileName,
  csafUrls,
  DISTRIBUTION_FOLDER,
  folderListing,
  hashFile,
  indexTxt,
  providerMetadata,
} from '../../modules/advisories/csaf-provider.js';
import { listReleasedDocuments, type ReleasedDocument, releasedContent } from '../../modules/advisories/released-documents.js';
import { advisoryListPage, advisoryPage, type PublicAdvisory } from './advisory-pages.js';
import { directoryListingPage } from './csaf-listing-page.js';

/**
 * Exactly `application/json`, as CSAF checkers compare it (csaf_checker warns on anything else, a
 * charset parameter included; JSON is UTF-8 by definition, RFC 8259). Fastify appends a charset to
 * a JSON type sent as a string, so JSON bodies go out as their UTF-8 bytes.
 */
const JSON_TYPE = 'application/json';
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
const TEXT = 'text/plain; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
/** Documents change in place on revision: short public caching, revalidated by ETag (the SHA-256). */
const CACHE = 'public, max-age=300';

/** The released documents of this portal's company; none released means no provider at all (404). */
async function released(app: FastifyInstance, req: FastifyRequest): Promise<ReleasedDocument[]> {
  const docs = await listReleasedDocuments(app.deps.database.db, req.portalCompany.id);
  if (docs.length === 0) throw notFound('CSAF provider');
  return docs;
}

function sendCached(req: FastifyRequest, reply: FastifyReply, type: string, etag: string, body: string | Buffer) {
  reply.header('cache-control', CACHE).header('etag', `"${etag}"`);
  if (req.headers['if-none-match'] === `"${etag}"`) return reply.code(304).send();
  return reply.type(type).send(body);
}

/**
 * The CSAF 2.0 provider of one portal (CSAF 2.0 section 7, requirements 7-14 and 18):
 * `provider-metadata.json`, the TLP:CLEAR folder with `index.txt`, `changes.csv`, one folder per
 * year, `.sha256`/`.sha512` beside each document, and a directory listing of the TLP:CLEAR folder
 * and each year folder (requirement 14); plus the human-readable advisory pages.
 * Only released bytes are served: drafts never leave the company's API.
 */
export async function portalCsafRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;
  const base = `/.well-known/csaf`;
  const dir = `${base}/${DISTRIBUTION_FOLDER}`;

  app.get(`${base}/provider-metadata.json`, async (req, reply) => {
    const docs = await released(app, req);
    const c = req.portalCompany;
    const portal = portalUrl(config, c.slug);
    const lastUpdated = new Date(Math.max(...docs.map((d) => d.currentReleaseDate.getTime())));
    const body = `${JSON.stringify(providerMetadata({ wellKnownUrl: csafUrls(portal).wellKnown, publisher: { name: c.name, namespace: portal, contactDetails: c.securityEmail }, lastUpdated }), null, 2)}\n`;
    return reply.header('cache-control', CACHE).type(JSON_TYPE).send(utf8(body));
  });

  app.get(`${dir}/index.txt`, async (req, reply) =>
    reply
      .header('cache-control', CACHE)
      .type(TEXT)
      .send(indexTxt(await released(app, req))),
  );
  app.get(`${dir}/changes.csv`, async (req, reply) =>
    reply
      .header('cache-control', CACHE)
      .type('text/csv; charset=utf-8')
      .send(changesCsv(await released(app, req))),
  );

  // Directory listings (requirement 14) at the folders' own URLs, which end in a slash; without it,
  // a redirect, so that relative links a reader builds from the address resolve inside the folder.
  const YEAR = /^\d{4}$/;
  app.get(`${dir}/`, async (req, reply) => {
    const entries = folderListing(await released(app, req)) ?? [];
    return reply
      .header('cache-control', CACHE)
      .type(HTML)
      .send(directoryListingPage(`${dir}/`, `${dir}/`, entries));
  });
  app.get<{ Params: { year: string } }>(`${dir}/:year/`, async (req, reply) => {
    const entries = YEAR.test(req.params.year) ? folderListing(await released(app, req), req.params.year) : undefined;
    if (!entries) throw notFound('CSAF folder');
    return reply
      .header('cache-control', CACHE)
      .type(HTML)
      .send(directoryListingPage(`${dir}/${req.params.year}/`, `${dir}/`, entries, `${dir}/`));
  });
  app.get(dir, async (_req, reply) => reply.redirect(`${dir}/`, 301));
  app.get<{ Params: { year: string } }>(`${dir}/:year`, async (req, reply) => {
    if (!YEAR.test(req.params.year)) throw notFound('CSAF document');
    return reply.redirect(`${dir}/${req.params.year}/`, 301);
  });

  app.get<{ Params: { year: string; file: string } }>(`${dir}/:year/:file`, async (req, reply) => {
    const m = /^(.+\.json)(\.sha256|\.sha512)?$/.exec(req.params.file);
    const path = `${req.params.year}/${m?.[1] ?? ''}`;
    const doc = m ? (await released(app, req)).find((d) => d.path === path) : undefined;
    if (!m || !doc) throw notFound('CSAF document');
    const name = m[1] as string;
    if (m[2] === '.sha256')
      return sendCached(req, reply, TEXT, `${doc.sha256}-256`, hashFile('sha256', await releasedContent(database.db, req.portalCompany.id, doc), name));
    if (m[2] === '.sha512')
      return sendCached(req, reply, TEXT, `${doc.sha256}-512`, hashFile('sha512', await releasedContent(database.db, req.portalCompany.id, doc), name));
    return sendCached(req, reply, JSON_TYPE, doc.sha256, utf8(await releasedContent(database.db, req.portalCompany.id, doc)));
  });

  // Human-readable pages, rendered from the released advisories (never from a working copy).
  const publicAdvisories = async (companyId: string): Promise<PublicAdvisory[]> => {
    const docs = (await listReleasedDocuments(database.db, companyId)).filter((d) => d.kind === 'csaf');
    const out = await Promise.all(
      docs.map(async (d) => ({ doc: d, csaf: JSON.parse(await releasedContent(database.db, companyId, d)) as Record<string, unknown> })),
    );
    return out.sort((a, b) => b.doc.initialReleaseDate.getTime() - a.doc.initialReleaseDate.getTime());
  };
  app.get('/advisories', async (req, reply) =>
    reply
      .header('cache-control', CACHE)
      .type(HTML)
      .send(advisoryListPage(req.portalCompany, await publicAdvisories(req.portalCompany.id))),
  );
  app.get<{ Params: { name: string } }>('/advisories/:name', async (req, reply) => {
    const found = (await publicAdvisories(req.portalCompany.id)).find((a) => csafFileName(a.doc.trackingId) === `${req.params.name}.json`);
    if (!found) throw notFound('advisory');
    return reply
      .header('cache-control', CACHE)
      .type(HTML)
      .send(advisoryPage(req.portalCompany, found, `${dir}/${found.doc.path}`));
  });
}
