export interface SpikeSettings {
  windowSeconds: number;
  baselineWindows: number;
  factor: number;
  minEvents: number;
}

export interface Spike {
  count: number;
  /** Mean events per window over the baseline windows. */
  baseline: number;
}

interface Series {
  /** Index of the newest window in `counts` (window number = floor(time / window)). */
  window: number;
  /** counts[0] is the current window, then the ones before it. */
  counts: number[];
  /** The first window this instance saw the group in: a group newer than its baseline cannot spike. */
  since: number;
}

/** Groups tracked at most; the least recently seen is forgotten first (Map keeps insertion order). */
const MAX_GROUPS = 20_000;

/**
 * A group spikes when its events in the current window reach `factor` × its baseline (the mean of
 * the `baselineWindows` windows before) and at least `minEvents`. A group must have been seen for
 * the whole baseline, so a new group's first burst is "new", not a spike; a quiet baseline counts
 * as one event per window. Per instance and in memory: what it counts is what this instance ingested.
 */
export class SpikeDetector {
  private readonly series = new Map<string, Series>();

  constructor(private readonly settings: SpikeSettings) {}

  record(groupId: string, nowMs: number): Spike | null {
    const { windowSeconds, baselineWindows, factor, minEvents } = this.settings;
    const window = Math.floor(nowMs / (windowSeconds * 1_000));
    let s = this.series.get(groupId);
    if (s) this.series.delete(groupId);
    else s = { window, counts: [0], since: window };
    this.series.set(groupId, s);
    if (this.series.size > MAX_GROUPS) this.series.delete(this.series.keys().next().value as string);
    if (window > s.window) {
      const gap = Math.min(window - s.window, baselineWindows + 1);
      s.counts = [...Array<number>(gap).fill(0), ...s.counts].slice(0, baselineWindows + 1);
      s.window = window;
    }
    s.counts[0]++;
    const count = s.counts[0];
    if (count < minEvents || window - s.since < baselineWindows) return null;
    const before = s.counts.slice(1);
    const baseline = before.reduce((a, b) => a + b, 0) / baselineWindows;
    return count >= factor * Math.max(baseline, 1) ? { count, baseline } : null;
  }
}
