import type { preValidationHookHandler } from 'fastify';
import { AppError, ErrorCode } from '../kernel/errors.js';

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * The pages' forms and the session's JSON endpoints read named fields of an object body. A body that
 * parsed to anything else (JSON `null`, an array, a scalar, `text/plain`) is refused with 400 before
 * any handler runs, never read as an empty form (issue 32, finding 6; the `{base_url}` operations
 * have the same rule in src/modules/operations/operation-input.ts). Buffers pass: a route that takes
 * raw bytes parses them itself.
 */
export const objectBodyOnly: preValidationHookHandler = (req, _reply, done) => {
  const b = req.body;
  if (b === undefined || Buffer.isBuffer(b) || (typeof b === 'object' && b !== null && !Array.isArray(b))) return done();
  done(new AppError(ErrorCode.VALIDATION, `the body must be a form or a JSON object, not ${kindOf(b)}`));
};
