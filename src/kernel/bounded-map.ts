/**
 * A map that keeps at most `limit` entries: setting one beyond it forgets the entry written
 * longest ago (writing a key again makes it the newest). The in-process caches use it so that no
 * input can grow them without bound (keys, portal companies, compliance facts).
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}
  get size(): number {
    return this.map.size;
  }
  get(k: K): V | undefined {
    return this.map.get(k);
  }
  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as K);
  }
  delete(k: K): void {
    this.map.delete(k);
  }
  clear(): void {
    this.map.clear();
  }
}
