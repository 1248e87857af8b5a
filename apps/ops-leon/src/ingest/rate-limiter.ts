/**
 * Events per key (project) per minute, as a sliding window approximated from two fixed ones: the
 * current minute's count plus the previous minute's weighted by how much of it the window still
 * covers (the estimate nginx and Cloudflare use). Constant memory per key; time comes in.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { minute: number; current: number; previous: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts one event and says whether it is within the limit; a refused one is not counted. */
  take(key: string, nowMs: number): boolean {
    if (this.perMinute === 0) return true;
    const minute = Math.floor(nowMs / 60_000);
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = { minute, current: 0, previous: 0 }));
    if (w.minute !== minute) {
      w.previous = w.minute === minute - 1 ? w.current : 0;
      w.current = 0;
      w.minute = minute;
    }
    const covered = 1 - (nowMs - minute * 60_000) / 60_000;
    if (w.current + w.previous * covered + 1 > this.perMinute) return false;
    w.current++;
    return true;
  }
}
