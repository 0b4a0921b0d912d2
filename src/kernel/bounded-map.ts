/**
 * A map whose entries weigh at most `limit` together (each weighs 1 unless `weigh` says otherwise):
 * setting one beyond it forgets the entries written longest ago (writing a key again makes it the
 * newest); an entry heavier than the whole limit is not kept. The in-process caches use it so that
 * no input can grow them without bound (keys, portal companies, compliance facts, company reads).
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private total = 0;
  private readonly limit: number;
  private readonly weigh: (value: V) => number;
  constructor(limit: number, weigh: (value: V) => number = () => 1) {
    this.limit = limit;
    this.weigh = weigh;
  }
  get size(): number {
    return this.map.size;
  }
  /** The entries' total weight (their number when nothing weighs them). */
  get weight(): number {
    return this.total;
  }
  get(k: K): V | undefined {
    return this.map.get(k)?.value;
  }
  set(k: K, value: V): void {
    this.delete(k);
    const weight = this.weigh(value);
    if (weight > this.limit) return;
    this.map.set(k, { value, weight });
    this.total += weight;
    while (this.total > this.limit) this.delete(this.map.keys().next().value as K);
  }
  delete(k: K): void {
    const entry = this.map.get(k);
    if (!entry) return;
    this.map.delete(k);
    this.total -= entry.weight;
  }
  clear(): void {
    this.map.clear();
    this.total = 0;
  }
}
