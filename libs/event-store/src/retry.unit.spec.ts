import { describe, expect, it } from 'vitest';
import { ConcurrencyError } from './concurrency-error';
import { withRetry } from './retry';

describe('withRetry', () => {
  it('retries a version conflict and returns the later success', async () => {
    let calls = 0;
    const result = await withRetry(async () => {
      if (++calls < 3) throw new ConcurrencyError('s-1', 1n, 2n);
      return 'ok';
    }, { baseDelayMs: 1 });
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('stops after maxAttempts with EVENTSTORE.RETRIES_EXHAUSTED', async () => {
    let calls = 0;
    const error = await withRetry(async () => {
      calls++;
      throw new ConcurrencyError('s-1', 1n, 2n);
    }, { maxAttempts: 5, baseDelayMs: 1 }).catch((e: unknown) => e);
    expect(calls).toBe(5);
    expect(error).toMatchObject({ code: 'EVENTSTORE.RETRIES_EXHAUSTED' });
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    await expect(withRetry(async () => {
      calls++;
      throw new Error('domain rule');
    })).rejects.toThrow('domain rule');
    expect(calls).toBe(1);
  });
});
