/**
 * Memos for the two costly aggregates of an evidence snapshot (measured: together about 70 % of
 * a 200-product company's evaluation on PGlite). Neither needs invalidation messages, so every
 * instance may keep its own:
 * - an SBOM is immutable once pushed, so the share of its components identified by purl or CPE is
 *   keyed by the SBOM's id forever;
 * - open findings change only inside a SARIF push, in the transaction that inserts the scan row
 *   (findings.store.ts), so a product's counts are keyed by its scans' count and latest time, read
 *   in the same snapshot. A future writer of findings outside a scan push must change that key.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}
  get(k: K): V | undefined {
    return this.map.get(k);
  }
  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as K);
  }
}

export type SeverityCounts = { critical: number; high: number; medium: number; low: number };

export const sbomShareCache = new BoundedMap<string, number | null>(50_000);
export const findingCountCache = new BoundedMap<string, { scans: string; counts: SeverityCounts }>(50_000);
