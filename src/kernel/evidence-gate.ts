import { AppError, ErrorCode } from './errors.js';

/**
 * Admission of evidence documents (SBOM and SARIF pushes, from REST, MCP and the dashboard) before
 * their bodies are read: at most `perCompany` of one company's documents in flight at once, and at
 * most `maxBytes` of documents in flight in the whole instance, and at most `perCompanyBytes` of
 * one company's (docs/evidence.md "Limits"). A refusal is RATE_LIMITED (429 with Retry-After): the
 * client sends again shortly. With nothing in flight one document is always admitted (of a company
 * with nothing in flight, its first), so a limit below EVIDENCE_MAX_BYTES never refuses every
 * document. A company's documents are read one at a time (the offload pool's turn per company), so
 * a second large one admitted beside the first would only wait in memory: `perCompanyBytes`
 * (by default one largest document's worth) refuses it instead, and keeps the second slot for small
 * pushes (ADR 0026).
 */
export type EvidenceGate = {
  /** Takes a slot for `bytes` of `companyId`'s document, or throws RATE_LIMITED; the returned release is idempotent. */
  take(companyId: string, bytes: number): () => void;
  stats(): { documents: number; bytes: number };
};

export const EVIDENCE_SLOTS_PER_COMPANY = 2;
const RETRY_AFTER_SECONDS = 5;

export function createEvidenceGate(o: { maxBytes: number; perCompany?: number; perCompanyBytes?: number }): EvidenceGate {
  const perCompany = o.perCompany ?? EVIDENCE_SLOTS_PER_COMPANY;
  const perCompanyBytes = o.perCompanyBytes ?? Infinity;
  const byCompany = new Map<string, { documents: number; bytes: number }>();
  let documents = 0;
  let bytes = 0;
  return {
    take(companyId, size) {
      const mine = byCompany.get(companyId) ?? { documents: 0, bytes: 0 };
      const own = mine.documents;
      if (own >= perCompany) {
        throw new AppError(
          ErrorCode.RATE_LIMITED,
          `${own} documents of your company are already being received or read; send this one when they are answered`,
          {
            retryAfterSeconds: RETRY_AFTER_SECONDS,
          },
        );
      }
      if (own > 0 && mine.bytes + size > perCompanyBytes) {
        throw new AppError(
          ErrorCode.RATE_LIMITED,
          'a large document of your company is already being received or read, and they are read one at a time; send this one when it is answered',
          { retryAfterSeconds: RETRY_AFTER_SECONDS },
        );
      }
      if (documents > 0 && bytes + size > o.maxBytes) {
        throw new AppError(ErrorCode.RATE_LIMITED, 'the service is receiving as many documents as it reads at once; send this one again shortly', {
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        });
      }
      byCompany.set(companyId, { documents: own + 1, bytes: mine.bytes + size });
      documents++;
      bytes += size;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = byCompany.get(companyId) ?? { documents: 1, bytes: size };
        if (left.documents > 1) byCompany.set(companyId, { documents: left.documents - 1, bytes: left.bytes - size });
        else byCompany.delete(companyId);
        documents--;
        bytes -= size;
      };
    },
    stats: () => ({ documents, bytes }),
  };
}
