import { AppError, ErrorCode } from './errors.js';

/**
 * Admission of evidence documents (SBOM and SARIF pushes, from REST, MCP and the dashboard) before
 * their bodies are read: at most `perCompany` of one company's documents in flight at once, and at
 * most `maxBytes` of documents in flight in the whole instance (docs/evidence.md "Limits"). A
 * refusal is RATE_LIMITED (429 with Retry-After): the client sends again shortly. With nothing in
 * flight one document is always admitted, so a limit below EVIDENCE_MAX_BYTES never refuses
 * every document.
 */
export type EvidenceGate = {
  /** Takes a slot for `bytes` of `companyId`'s document, or throws RATE_LIMITED; the returned release is idempotent. */
  take(companyId: string, bytes: number): () => void;
  stats(): { documents: number; bytes: number };
};

export const EVIDENCE_SLOTS_PER_COMPANY = 2;
const RETRY_AFTER_SECONDS = 5;

export function createEvidenceGate(o: { maxBytes: number; perCompany?: number }): EvidenceGate {
  const perCompany = o.perCompany ?? EVIDENCE_SLOTS_PER_COMPANY;
  const byCompany = new Map<string, number>();
  let documents = 0;
  let bytes = 0;
  return {
    take(companyId, size) {
      const own = byCompany.get(companyId) ?? 0;
      if (own >= perCompany) {
        throw new AppError(
          ErrorCode.RATE_LIMITED,
          `${own} documents of your company are already being received or read; send this one when they are answered`,
          {
            retryAfterSeconds: RETRY_AFTER_SECONDS,
          },
        );
      }
      if (documents > 0 && bytes + size > o.maxBytes) {
        throw new AppError(ErrorCode.RATE_LIMITED, 'the service is receiving as many documents as it reads at once; send this one again shortly', {
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        });
      }
      byCompany.set(companyId, own + 1);
      documents++;
      bytes += size;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (byCompany.get(companyId) ?? 1) - 1;
        if (n > 0) byCompany.set(companyId, n);
        else byCompany.delete(companyId);
        documents--;
        bytes -= size;
      };
    },
    stats: () => ({ documents, bytes }),
  };
}
