import { parse } from 'secure-json-parse';
import { validation } from '../kernel/errors.js';
import { ownBytes } from '../kernel/worker-bytes.js';
import type { TaskOutput } from '../kernel/worker-task.js';

/** Reading a large MCP request body on a worker: see readEnvelopeTask. */
export type EnvelopeInput = {
  body: Uint8Array;
  /** Stands in the message for the document argument taken out (random per request). */
  token: string;
  /** The tools that carry a document, by name: the argument holding it (push_sbom: `document`). */
  documentArgs: Record<string, string>;
};
export type Envelope = { message: unknown; document?: Uint8Array };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The worker's task (src/kernel/worker-pool.ts) for an MCP request body larger than other JSON
 * routes accept: parsed as Fastify's own JSON parser does (prototype poisoning refused), and when
 * it is a `tools/call` of a tool that carries a document, the document argument is taken out as
 * the bytes the REST route would have received (a string as it is, anything else as JSON) and
 * `token` put in its place, so the event loop only handles the small envelope around it.
 */
export function readEnvelopeTask(input: EnvelopeInput): TaskOutput<Envelope> {
  let message: unknown;
  try {
    message = parse(Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength).toString('utf8'), null, {
      protoAction: 'error',
      constructorAction: 'error',
    });
  } catch (e) {
    throw validation((e as Error).message);
  }
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) return { value: { message } };
  const { name, arguments: args } = message.params;
  const arg = typeof name === 'string' && Object.hasOwn(input.documentArgs, name) ? input.documentArgs[name] : undefined;
  const doc = arg !== undefined && isObject(args) ? args[arg] : undefined;
  if (arg === undefined || !isObject(args) || (typeof doc !== 'string' && (typeof doc !== 'object' || doc === null))) return { value: { message } };
  const document = ownBytes(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc), 'utf8'));
  args[arg] = input.token;
  return { value: { message, document }, transfer: [document.buffer as ArrayBuffer] };
}
