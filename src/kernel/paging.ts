import { z } from 'zod';

/** Offset paging for lists: pass the previous page's `nextOffset` (null on the last page). */
export const Paging = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  })
  .strict();
export type Paging = z.input<typeof Paging>;
export type Page<T> = { items: T[]; nextOffset: number | null };

/** The response schema of a page of `item`s (OpenAPI, MCP structured output). */
export const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      items: z.array(item),
      nextOffset: z.number().int().nullable().meta({ description: 'Pass as `offset` for the next page; null on the last page.' }),
    })
    .meta({ id });
