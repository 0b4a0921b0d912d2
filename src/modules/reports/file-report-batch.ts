import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import type { Company } from '../companies/companies.schemas.js';
import { findCompaniesBySlugs } from '../companies/find-companies.js';
import type { ReportFiler } from './file-report.js';
import { ReportFields } from './reports.schemas.js';

export const BULK_MAX_ITEMS = 20;

/** One bulk item: the report fields plus the target portal's `slug` (docs/intake.md "Bulk endpoint"). */
export const BulkItem = ReportFields.extend({
  slug: z
    .string({ error: (i) => (i.input === undefined ? 'slug is required' : 'slug must be a string') })
    .min(1, 'slug must not be empty')
    .max(255, 'slug must be at most 255 characters')
    .meta({ description: "The target company's portal subdomain.", example: 'acme' }),
}).meta({ id: 'BulkSubmissionItem' });
export type BulkItem = z.output<typeof BulkItem>;

export type BulkResult = { slug: string; ok: true; submissionId: string; createdAt: string } | { slug: string; ok: false; error: string };

export type BulkOutcome = { results: BulkResult[]; summary: { total: number; succeeded: number; failed: number } };

export type BatchOptions = {
  /** Looks up the distinct slugs; a seam so tests can count lookups. */
  lookup?: (db: Db, slugs: readonly string[]) => Promise<Map<string, Company>>;
  /** Told about each item whose write failed (the transport logs it; the caller sees a generic error). */
  onWriteError?: (index: number, err: unknown) => void;
};

/**
 * Files validated bulk items (docs/intake.md "Bulk endpoint"). The companies are looked up once per
 * distinct slug; every item goes to the report filer at once, so the whole batch (with other
 * requests' filings) is written in one group commit, and each item still has every side effect. An
 * item that cannot be filed (unknown slug, failed write: the filer retries a failed group one
 * filing at a time) becomes `ok: false` while the others are filed. Results keep request order.
 */
export async function fileReportBatch(db: Db, filer: ReportFiler, ctx: Context, items: readonly BulkItem[], opts: BatchOptions = {}): Promise<BulkOutcome> {
  const slugs = [...new Set(items.map((i) => i.slug.toLowerCase()))];
  const companies = await (opts.lookup ?? findCompaniesBySlugs)(db, slugs);
  const results = await Promise.all(
    items.map(async ({ slug, ...fields }, i): Promise<BulkResult> => {
      const company = companies.get(slug.toLowerCase());
      if (!company) return { slug, ok: false, error: `portal not found: no company has the portal "${slug}"` };
      try {
        const { report } = await filer.file({ ctx, company, fields, source: 'bulk' });
        return { slug, ok: true, submissionId: report.submissionId, createdAt: report.createdAt };
      } catch (err) {
        opts.onWriteError?.(i, err);
        return { slug, ok: false, error: 'the report could not be stored; nothing was filed for this item, retry it' };
      }
    }),
  );
  const succeeded = results.filter((r) => r.ok).length;
  return { results, summary: { total: items.length, succeeded, failed: items.length - succeeded } };
}
