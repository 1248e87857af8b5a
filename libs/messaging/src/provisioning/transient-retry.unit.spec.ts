import { JetStreamApiError } from '@nats-io/jetstream';
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { describe, expect, it } from 'vitest';
import { isTransientJetStreamError, retryTransient } from './transient-retry';

const noSleep = { sleep: async () => undefined };

describe('provisioning through a NATS that is still starting', () => {
  it('retries timeouts, missing responders and a meta leader election, and returns once the call goes through', async () => {
    const failures: unknown[] = [new TimeoutError(), new RequestError('no responders', { cause: new NoRespondersError('$JS.API.INFO') }), new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' })];
    const retried: number[] = [];
    const result = await retryTransient(
      async () => {
        const next = failures.shift();
        if (next) throw next;
        return 'stream info';
      },
      { ...noSleep, onRetry: (_, attempt) => retried.push(attempt) },
    );
    expect(result).toBe('stream info');
    expect(retried).toEqual([1, 2, 3]);
  });

  it('throws at once what a retry cannot mend (overlapping subjects, a refused permission)', async () => {
    let calls = 0;
    const overlap = new JetStreamApiError({ code: 400, err_code: 10065, description: 'subjects overlap with an existing stream' });
    await expect(
      retryTransient(async () => {
        calls++;
        throw overlap;
      }, noSleep),
    ).rejects.toBe(overlap);
    expect(calls).toBe(1);
    expect(isTransientJetStreamError(new Error('Permissions Violation'))).toBe(false);
  });

  it('gives up with the last error once the deadline has passed', async () => {
    let calls = 0;
    await expect(
      retryTransient(
        async () => {
          calls++;
          throw new TimeoutError();
        },
        { deadlineMs: 0, ...noSleep },
      ),
    ).rejects.toBeInstanceOf(TimeoutError);
    expect(calls).toBe(1);
  });
});
