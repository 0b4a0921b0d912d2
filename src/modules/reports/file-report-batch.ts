import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import type { Company } from '../companies/companies.schemas.js';
import { findCompaniesBySlugs } from '../companies/find-companies.js';
import { fileValidatedReport } from './file-report.js';
import { ReportFields } from './reports.schemas.js';

export const BULK_MAX_ITEMS = 20;

/** One bulk item: the report fields plus the target portal's `slug` (spec "Bulk submission"). */
export const BulkItem = ReportFields.extend({
  slug: z
    .string({ error: (i) => (i.input === undefined ? 'slug is required' : 'slug must be a string') })
    .min(1, 'slug must not be empty')
    .max(255, 'slug must be at most 255 characters')
    .meta({ description: "The target company's portal subdomain.", example: 'acme' }),
}).meta({ id: 'BulkSubmissionItem' });
export type BulkItem = z.output<typeof BulkItem>;

export type BulkResult =
  | { slug: string; ok: true; submissionId: string; createdAt: string }
  | { slug: string; ok: false; error: string };

export type BulkOutcome = { results: BulkResult[]; summary: { total: number; succeeded: number; failed: number } };

export type BatchOptions = {
  /** Looks up the distinct slugs; a seam so tests can count lookups. */
  lookup?: (db: Db, slugs: readonly string[]) => Promise<Map<string, Company>>;
  /** Told about each item whose write failed (the transport logs it; the caller sees a generic error). */
  onWriteError?: (index: number, err: unknown) => void;
  /** Items filed at once. Bounded so one batch cannot take every pooled connection. */
  concurrency?: number;
};

/**
 * Files validated bulk items (spec Rules 2-3). The companies are looked up once per distinct slug;
 * each item is filed in its own transaction with every side effect, so a failed item (unknown
 * slug, failed write) becomes `ok: false` while the others are filed. Results keep request order.
 */
export async function fileReportBatch(db: Db, ctx: Context, items: readonly BulkItem[], opts: BatchOptions = {}): Promise<BulkOutcome> {
  const slugs = [...new Set(items.map((i) => i.slug.toLowerCase()))];
  const companies = await (opts.lookup ?? findCompaniesBySlugs)(db, slugs);
  const results: BulkResult[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      const { slug, ...fields } = items[i] as BulkItem;
      const company = companies.get(slug.toLowerCase());
      if (!company) {
        results[i] = { slug, ok: false, error: `portal not found: no company has the portal "${slug}"` };
        continue;
      }
      try {
        const { report } = await fileValidatedReport(db, ctx, company, fields, 'bulk');
        results[i] = { slug, ok: true, submissionId: report.submissionId, createdAt: report.createdAt };
      } catch (err) {
        opts.onWriteError?.(i, err);
        results[i] = { slug, ok: false, error: 'the report could not be stored; nothing was filed for this item, retry it' };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 4, items.length) }, worker));
  const succeeded = results.filter((r) => r.ok).length;
  return { results, summary: { total: items.length, succeeded, failed: items.length - succeeded } };
}
