import { sha256, type Segment } from './request';

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/**
 * A per-server prompt cache keyed by the hash of (model, prefix up to a breakpoint). The longest
 * cached breakpoint prefix is read; every later breakpoint's new tokens are written with that
 * breakpoint's ttl. A read refreshes the entry's ttl, as the API does. (No minimum cacheable
 * length is applied: short test prompts still cache.)
 */
export class PromptCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Computes usage for a request and records writes (unless `dryRun`). */
  apply(model: string, segments: Segment[], dryRun = false): CacheUsage {
    const total = segments.reduce((sum, s) => sum + s.tokens, 0);
    const breakpoints: Array<{ hash: string; end: number; ttl: '5m' | '1h' }> = [];
    let rolling = sha256(`model:${model}`);
    let tokens = 0;
    for (const s of segments) {
      rolling = sha256(rolling + s.key);
      tokens += s.tokens;
      if (s.ttl) breakpoints.push({ hash: rolling, end: tokens, ttl: s.ttl });
    }

    const now = this.now();
    let readIdx = -1;
    for (let i = breakpoints.length - 1; i >= 0; i--) {
      const expires = this.entries.get(breakpoints[i].hash);
      if (expires !== undefined && expires > now) {
        readIdx = i;
        break;
      }
    }
    const read = readIdx === -1 ? 0 : breakpoints[readIdx].end;
    if (readIdx !== -1 && !dryRun) this.entries.set(breakpoints[readIdx].hash, now + TTL_MS[breakpoints[readIdx].ttl]);

    let covered = read;
    const written = { '5m': 0, '1h': 0 };
    for (const bp of breakpoints.slice(readIdx + 1)) {
      written[bp.ttl] += bp.end - covered;
      covered = bp.end;
      if (!dryRun) this.entries.set(bp.hash, now + TTL_MS[bp.ttl]);
    }
    const creation = written['5m'] + written['1h'];
    return {
      input_tokens: total - read - creation,
      cache_creation_input_tokens: creation,
      cache_read_input_tokens: read,
      cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
    };
  }
}
