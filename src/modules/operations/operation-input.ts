import { z } from 'zod';
import { parseInput } from '../../kernel/validate.js';
import type { Operation } from './operation.js';

/** Whether the operation's body is a JSON object (its fields spread into the MCP tool's arguments). */
export const hasObjectBody = (op: Operation): boolean => op.input instanceof z.ZodObject && op.rawBody === undefined;

// Any JSON object; its fields are the verb's to judge. `null`, an array or a scalar is not one.
const AnyObject = z.looseObject({});

/**
 * The one rule every transport applies before an operation's handler runs (issue 32, finding 6):
 * the query must satisfy the operation's query schema (an enum means its values only), and a body
 * declared as an object must be a JSON object: `null`, an array or a scalar is refused with 400,
 * never read as "no body". A body left out of an operation whose body is optional reads as `{}`.
 * Returns the body the handler gets; the query is passed on as given (handlers parse it again).
 */
export function operationInput(op: Operation, query: Record<string, string>, body: unknown): unknown {
  if (op.query) parseInput(op.query, query);
  if (!hasObjectBody(op)) return body;
  if (body === undefined && op.optionalBody) return {};
  parseInput(AnyObject, body);
  return body;
}
