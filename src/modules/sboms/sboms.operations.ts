import { type Operation, defineOperation } from '../operations/operation.js';
import { documentBytes, download } from '../operations/document-body.js';
import { gunzip } from '../../kernel/evidence-store.js';
import { parseInput } from '../../kernel/validate.js';
import { getSbomDiff } from './get-sbom-diff.js';
import { getSbom, getSbomDocument } from './get-sbom.js';
import { listSbomComponents } from './list-sbom-components.js';
import { listSboms } from './list-sboms.js';
import { pushSbom } from './push-sbom.js';
import { SBOM_MEDIA_TYPES } from './sboms.detect.js';
import { ListSbomsQuery, PushSbomQuery, Sbom, SbomComponentPage, SbomDiffBody, SbomDocument, SbomPage } from './sboms.schemas.js';
import { Paging } from '../../kernel/paging.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const EXAMPLE_SBOM = {
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  version: 1,
  metadata: { component: { type: 'firmware', 'bom-ref': 'fw', name: 'thermo-t2-firmware', version: '2.4.1' } },
  components: [{ type: 'library', 'bom-ref': 'pkg:generic/lwip@2.2.0', name: 'lwip', version: '2.2.0', purl: 'pkg:generic/lwip@2.2.0' }],
  dependencies: [{ ref: 'fw', dependsOn: ['pkg:generic/lwip@2.2.0'] }],
};

/** The REST endpoints for SBOMs (docs/evidence.md "HTTP"). */
export const sbomOperations: Operation[] = [
  defineOperation({
    name: 'sboms.push',
    statuses: [201],
    summary:
      'Push an SBOM (CycloneDX 1.4-1.7 JSON or SPDX 2.3 JSON) as the next version of a product; answers its metadata and the difference from the previous version',
    scope: 'sbom:write',
    method: 'POST',
    path: '/sboms',
    mcpTool: 'push_sbom',
    mcpBodyName: 'document',
    rawBody: { mediaTypes: ['application/json', SBOM_MEDIA_TYPES.cyclonedx, SBOM_MEDIA_TYPES.spdx], maxBytes: (c) => c.evidenceMaxBytes },
    query: PushSbomQuery,
    input: SbomDocument,
    output: Sbom,
    errors: {
      404: 'No product of your company has the identifier given in `product`.',
      409: 'The product is archived: restore it before adding evidence.',
      422: 'Reading the document took longer than its budget of 30 s of work (the CPU time of the thread reading it); it was stopped and nothing was stored.',
    },
    example: { query: { product: 'thermo-t2' }, body: EXAMPLE_SBOM },
    handler: async ({ db, ctx, companyId, query, config }, body) => {
      const { product } = parseInput(PushSbomQuery, query);
      const sbom = await pushSbom(db, ctx, companyId, product, documentBytes(body), { maxBytes: config.evidenceMaxBytes });
      return { status: 201, body: sbom };
    },
  }),
  defineOperation({
    name: 'sboms.list',
    summary: 'SBOM versions, newest first, optionally of one product (offset paging)',
    scope: 'read',
    method: 'GET',
    path: '/sboms',
    mcpTool: 'list_sboms',
    query: ListSbomsQuery,
    output: SbomPage,
    example: { query: { limit: '10' } },
    handler: async ({ db, companyId, query }) => {
      const { limit, offset, ...filter } = parseInput(ListSbomsQuery, query);
      return { status: 200, body: await listSboms(db, companyId, filter, { limit, offset }) };
    },
  }),
  defineOperation({
    name: 'sboms.get',
    summary: "One SBOM version's metadata",
    scope: 'read',
    method: 'GET',
    path: '/sboms/:id',
    output: Sbom,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await getSbom(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'sboms.components',
    summary: "One SBOM version's normalised components in document order (offset paging)",
    scope: 'read',
    method: 'GET',
    path: '/sboms/:id/components',
    query: Paging,
    output: SbomComponentPage,
    example: { params: { id: EXAMPLE_ID }, query: { limit: '50' } },
    handler: async ({ db, companyId, params, query }) => ({ status: 200, body: await listSbomComponents(db, companyId, params.id, query) }),
  }),
  defineOperation({
    name: 'sboms.diff',
    summary: 'The components added, removed and changed since the previous version of the product',
    scope: 'read',
    method: 'GET',
    path: '/sboms/:id/diff',
    output: SbomDiffBody,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await getSbomDiff(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'sboms.document',
    summary: 'The original document, byte for byte, as an attachment in its own media type',
    scope: 'read',
    method: 'GET',
    path: '/sboms/:id/document',
    output: SbomDocument,
    produces: [SBOM_MEDIA_TYPES.cyclonedx, SBOM_MEDIA_TYPES.spdx],
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => {
      const doc = await getSbomDocument(db, companyId, params.id);
      return download({ ...doc, body: await gunzip(doc.body) });
    },
  }),
];
