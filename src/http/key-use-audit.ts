import type { FastifyRequest } from 'fastify';
import type { AuditRow } from '../modules/audit/audit-writer.js';
import type { KeyRecord } from '../modules/keys/authenticate-key.js';

/** docs/access.md "Audit log": every use of a key is recorded. 401/403/429 are refusals, other 4xx/5xx failures. */
export const outcomeOf = (status: number): 'success' | 'denied' | 'failure' =>
  status < 400 ? 'success' : status === 401 || status === 403 || status === 429 ? 'denied' : 'failure';

/**
 * The audit row of one key use: time, key id, method and path (or the MCP tool), status, client
 * address, user agent. The query string is left out: it is caller data and may hold a secret.
 */
export function keyUseRow(req: FastifyRequest, key: KeyRecord, status: number): AuditRow {
  const ua = req.headers['user-agent'];
  const label = req.auditLabel;
  return {
    companyId: key.companyId,
    at: new Date(),
    actorType: 'api_key',
    actorId: key.id,
    action: label?.action ?? 'api.request',
    targetType: null,
    targetId: null,
    // A refusal by status (401/403/429 before the tool ran) outranks what the label says.
    outcome: status >= 400 ? outcomeOf(status) : (label?.outcome ?? outcomeOf(status)),
    ip: req.ip ?? null,
    userAgent: typeof ua === 'string' ? ua.slice(0, 512) : null,
    requestId: req.id,
    details: { ...(label?.details ?? { method: req.method, path: (req.url.split('?')[0] ?? '').slice(0, 512) }), status },
  };
}
