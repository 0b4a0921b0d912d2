import { z } from 'zod';

const Text255 = z.string().trim().min(1).max(255);

/** docs/api.md "Writes": name and identifier required, every string at most 255 characters. */
export const UpsertProductInput = z
  .object({
    name: Text255.meta({ description: 'Product name, shown in the portal dropdown.', example: 'Smart Thermostat T2' }),
    identifier: Text255.meta({ description: 'Stable external identifier; the upsert key.', example: 'thermo-t2' }),
    producer: z.string().trim().max(255).nullable().optional().meta({ example: 'Acme GmbH' }),
    firmwareVersion: z.string().trim().max(255).nullable().optional().meta({ example: '2.4.1' }),
  })
  .strict()
  .meta({ id: 'UpsertProductInput' });
export type UpsertProductInput = z.infer<typeof UpsertProductInput>;

export const Product = z
  .object({
    id: z.uuid(),
    name: z.string(),
    identifier: z.string(),
    producer: z.string().nullable(),
    firmwareVersion: z.string().nullable(),
    archivedAt: z.iso.datetime().nullable().meta({
      description: 'When the product was archived (kept for the record; out of the portal dropdown, compliance and new evidence); null while active.',
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof Product>;

export type ProductRow = {
  id: string;
  name: string;
  identifier: string;
  producer: string | null;
  firmwareVersion: string | null;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

export const toProduct = (r: ProductRow): Product => ({
  id: r.id,
  name: r.name,
  identifier: r.identifier,
  producer: r.producer,
  firmwareVersion: r.firmwareVersion,
  archivedAt: r.archivedAt?.toISOString() ?? null,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});
