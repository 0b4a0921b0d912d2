import { z } from 'zod';


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
    relationship: z.enum(['direct', 'transitive', 'unknown']),
  })
  .meta({ id: 'SbomComponent' });
export type SbomComponent = z.infer<typeof SbomComponent>;


export const ListSbomsFilter = z.object({ product: z.string().min(1).max(255).optional() }).strict();
export type ListSbomsFilter = z.input<typeof ListSbomsFilter>;
