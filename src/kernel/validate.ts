import type { z } from 'zod';
import { AppError, ErrorCode, type FieldIssue } from './errors.js';

/** Turns zod issues into field issues with dotted paths (`submissions.3.description`). */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/** Parses input with a schema or throws a VALIDATION AppError whose message names the first field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issues = toFieldIssues(r.error);
  const first = issues[0];
  const message = first ? (first.path ? `${first.path}: ${first.message}` : first.message) : 'invalid input';
  throw new AppError(ErrorCode.VALIDATION, message, { issues });
}
