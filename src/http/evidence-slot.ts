import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The bytes a request says it will send: its Content-Length, or the route's whole limit when it
 * streams without one (chunked), since nothing smaller can be promised before it is read.
 */
function declaredBytes(req: FastifyRequest, maxBytes: number): number {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined || length === undefined) return maxBytes;
  const n = Number(length);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, maxBytes) : maxBytes;
}

/**
 * Takes the instance's evidence slot (src/kernel/evidence-gate.ts) for this request's document
 * before its body is read, or throws RATE_LIMITED (429, Retry-After). Held until the answer is sent
 * or the connection closes, so the body, its reading on a worker and its transaction all count.
 */
export function holdEvidenceSlot(req: FastifyRequest, reply: FastifyReply, companyId: string, maxBytes: number): void {
  const release = req.server.evidenceGate.take(companyId, declaredBytes(req, maxBytes));
  reply.raw.once('close', release);
}
