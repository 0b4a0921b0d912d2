import { z } from 'zod';
import { pageOf, Paging } from '../../kernel/paging.js';

const DiffCounts = {
  added: z.number().int().meta({ description: 'Components in this version and not in the previous one.' }),
  removed: z.number().int(),
  changed: z.number().int().meta({ description: 'Same package (purl without version, else name) with another version or other facts.' }),
};

export const Sbom = z
  .object({
    id: z.uuid(),
    productIdentifier: z.string(),
    version: z.number().int().meta({ description: '1 for the first SBOM of the product, then one more per push.' }),
    format: z.enum(['cyclonedx', 'spdx']),
    specVersion: z.string().meta({ example: '1.6' }),
    serialNumber: z.string().nullable(),
    subjectName: z.string().nullable(),
    subjectVersion: z.string().nullable(),
    componentCount: z.number().int(),
    dependencyCount: z.number().int(),
    previousId: z.uuid().nullable(),
    ...DiffCounts,
    sha256: z.string(),
    byteSize: z.number().int(),
    createdAt: z.iso.datetime(),
    matching: z.enum(['pending', 'done']).meta({
      description:
        'Whether the known-vulnerability match of this version is recorded (`done`) or still running after the push answered (`pending`, for SBOMs of more than 1,000 components); the `sbom.matched` event follows a pending one.',
    }),
  })
  .meta({ id: 'Sbom' });
export type Sbom = z.infer<typeof Sbom>;

export const SbomComponent = z
  .object({
    ordinal: z.number().int(),
    ref: z.string().nullable(),
    type: z.string().nullable(),
    group: z.string().nullable(),
    name: z.string(),
    version: z.string().nullable(),
    purl: z.string().nullable(),
    cpe: z.string().nullable(),
    licenses: z.array(z.string()),
    hashes: z.array(z.object({ alg: z.string(), content: z.string() })),
    supplier: z.string().nullable(),
    vcsUrl: z.string().nullable().describe('The source repository the document names (CycloneDX `vcs` reference, SPDX `downloadLocation`)'),
    websiteUrl: z.string().nullable().describe("The project's site the document names (CycloneDX `website` reference, SPDX `homepage`)"),
    relationship: z.enum(['direct', 'transitive', 'unknown']),
  })
  .meta({ id: 'SbomComponent' });
export type SbomComponent = z.infer<typeof SbomComponent>;

export const ListSbomsFilter = z
  .object({ product: z.string().min(1).max(255).optional().meta({ description: 'Only the SBOMs of the product with this identifier.' }) })
  .strict();
export type ListSbomsFilter = z.input<typeof ListSbomsFilter>;

const ProductParam = z.string().min(1).max(255).meta({ description: 'Identifier of one of your products (`POST /products`).', example: 'thermo-t2' });

export const PushSbomQuery = z.object({ product: ProductParam }).strict();

export const ListSbomsQuery = z.object({ ...ListSbomsFilter.shape, ...Paging.shape }).strict();

/** An SBOM as pushed: validated against the official schema of its format, not by this schema. */
export const SbomDocument = z.record(z.string(), z.unknown()).meta({
  id: 'SbomDocument',
  description: 'A CycloneDX 1.4-1.7 JSON or SPDX 2.3 JSON document, validated against the official JSON schema of its format and version.',
});

export const SbomPage = pageOf(Sbom, 'SbomPage');
export const SbomComponentPage = pageOf(SbomComponent, 'SbomComponentPage');

const ComponentRef = z.object({ name: z.string(), version: z.string().nullable(), purl: z.string().nullable() }).meta({ id: 'ComponentRef' });
export const SbomDiffBody = z
  .object({
    previousId: z.uuid().nullable().meta({ description: 'The version compared with; null for the first version (everything added).' }),
    added: z.array(ComponentRef),
    removed: z.array(ComponentRef),
    changed: z.array(z.object({ before: ComponentRef, after: ComponentRef, fields: z.array(z.string()).meta({ example: ['version', 'hashes'] }) })),
  })
  .meta({ id: 'SbomDiff' });
