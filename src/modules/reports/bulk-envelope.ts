import type { z } from 'zod';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { BULK_MAX_ITEMS, BulkItem } from './file-report-batch.js';

const fail = (path: string, message: string): AppError => {
  const label = path.replace(/^submissions\.(\d+)/, 'submissions[$1]');
  return new AppError(ErrorCode.VALIDATION, `${label}: ${message}`, { issues: [{ path, message }] });
};

/** First issue of an item as (field, message); unknown keys are named one by one. */
function firstIssue(error: z.ZodError): { field: string; message: string } {
  const i = error.issues[0];
  if (!i) return { field: '', message: 'invalid item' };
  if (i.code === 'unrecognized_keys') return { field: String(i.keys[0]), message: 'unknown field; allowed are the report fields and slug' };
  return { field: i.path.map(String).join('.'), message: i.message };
}

/**
 * Checks a whole bulk envelope before anything is filed (docs/intake.md "Bulk endpoint"): an object
 * with a `submissions` array of 1-20 items, each an object passing the report field validation plus
 * a string `slug`. The first problem found is THE error: one message naming the item index
 * (0-based) and the field, so a caller can fix its batch and resend it; a malformed batch files
 * nothing.
 */
export function parseBulkEnvelope(body: unknown): BulkItem[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw fail('', 'the body must be a JSON object with a "submissions" array');
  }
  const extra = Object.keys(body).find((k) => k !== 'submissions');
  if (extra !== undefined) throw fail(extra, 'unknown field; the envelope holds only "submissions"');
  const submissions = (body as { submissions?: unknown }).submissions;
  if (submissions === undefined) throw fail('submissions', 'submissions is required: an array of 1 to 20 reports');
  if (!Array.isArray(submissions)) throw fail('submissions', 'submissions must be an array of 1 to 20 reports');
  if (submissions.length === 0) throw fail('submissions', 'submissions must hold at least 1 report');
  if (submissions.length > BULK_MAX_ITEMS) {
    throw fail('submissions', `submissions holds ${submissions.length} reports; at most ${BULK_MAX_ITEMS} are accepted per batch`);
  }
  return submissions.map((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw fail(`submissions.${index}`, 'each submission must be a JSON object');
    }
    const r = BulkItem.safeParse(item);
    if (r.success) return r.data;
    const { field, message } = firstIssue(r.error);
    throw fail(field ? `submissions.${index}.${field}` : `submissions.${index}`, message);
  });
}
