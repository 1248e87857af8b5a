/**
 * The last `capacity` values added, oldest forgotten first (a Set keeps insertion order): bounded
 * memory for "have I seen this one lately".
 */
export class RecentSet<T> {
  private readonly values = new Set<T>();

  constructor(private readonly capacity: number) {}

  has(value: T): boolean {
    return this.values.has(value);
  }

  add(value: T): void {
    if (this.capacity <= 0 || this.values.has(value)) return;
    this.values.add(value);
    if (this.values.size > this.capacity) this.values.delete(this.values.values().next().value as T);
  }
}
