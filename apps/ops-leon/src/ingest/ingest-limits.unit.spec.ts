import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter';
import { SpikeDetector } from './spike-detector';

describe('rate limiter', () => {
  it('lets a project send its limit per minute and refuses the rest, without counting refusals', () => {
    const limiter = new RateLimiter(5);
    const start = 60_000 * 100;
    const answers = Array.from({ length: 8 }, (_, i) => limiter.take('shop', start + i));
    expect(answers).toEqual([true, true, true, true, true, false, false, false]);
    expect(limiter.take('blog', start + 10)).toBe(true);
  });

  it('slides: the previous minute weighs less as the new one goes on', () => {
    const limiter = new RateLimiter(10);
    const start = 60_000 * 100;
    for (let i = 0; i < 10; i++) expect(limiter.take('shop', start + 59_000)).toBe(true);
    // 6 s into the next minute the previous one still weighs 90%: 9 of 10 taken, one left.
    expect(limiter.take('shop', start + 66_000)).toBe(true);
    expect(limiter.take('shop', start + 66_000)).toBe(false);
    // Half way: 5 + 1 taken, 4 left.
    expect(Array.from({ length: 5 }, () => limiter.take('shop', start + 90_000)).filter(Boolean)).toHaveLength(4);
  });

  it('has no limit at 0', () => {
    const limiter = new RateLimiter(0);
    expect(Array.from({ length: 1_000 }, () => limiter.take('shop', 0)).every(Boolean)).toBe(true);
  });
});

describe('spike detector', () => {
  const settings = { windowSeconds: 60, baselineWindows: 3, factor: 5, minEvents: 10 };
  const minute = (n: number) => n * 60_000;

  it('reports a spike when a window reaches factor × the baseline mean, and not before', () => {
    const d = new SpikeDetector(settings);
    // Three baseline windows of 4 events each: baseline 4, a spike needs 20.
    for (let w = 0; w < 3; w++) for (let i = 0; i < 4; i++) expect(d.record('g', minute(w) + i)).toBeNull();
    for (let i = 1; i < 20; i++) expect(d.record('g', minute(3) + i)).toBeNull();
    expect(d.record('g', minute(3) + 30)).toEqual({ count: 20, baseline: 4 });
  });

  it('never calls a new group’s first burst a spike', () => {
    const d = new SpikeDetector(settings);
    const answers = Array.from({ length: 500 }, (_, i) => d.record('new', minute(0) + i));
    expect(answers.every((a) => a === null)).toBe(true);
  });

  it('treats quiet windows as zeros and a quiet baseline as one event per window', () => {
    const d = new SpikeDetector(settings);
    d.record('g', minute(0));
    // Windows 1-3 silent; window 4's baseline is (0 + 0 + 0) / 3 → 1, so the 10th event (minEvents) spikes.
    for (let i = 1; i < 10; i++) expect(d.record('g', minute(4) + i)).toBeNull();
    expect(d.record('g', minute(4) + 20)).toEqual({ count: 10, baseline: 0 });
  });
});
