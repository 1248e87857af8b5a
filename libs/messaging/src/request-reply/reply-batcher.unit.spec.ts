import type { Msg } from '@nats-io/nats-core';
import { describe, expect, it } from 'vitest';
import { respondSoon } from './reply-batcher';

/** A reply target that records when it was answered, relative to the other ones. */
function target(log: string[], name: string, fail = false): Msg {
  return {
    respond: () => {
      log.push(name);
      if (fail) throw new Error('connection closed');
      return true;
    },
  } as unknown as Msg;
}

describe('reply batcher', () => {
  it('holds the replies of one event-loop turn and sends them together, in order, at its end', async () => {
    const log: string[] = [];
    const sent = [respondSoon(target(log, 'a'), new Uint8Array()), Promise.resolve().then(() => respondSoon(target(log, 'b'), new Uint8Array()))];
    log.push('turn goes on');
    await Promise.resolve();
    expect(log).toEqual(['turn goes on']);
    await Promise.all(sent);
    expect(log).toEqual(['turn goes on', 'a', 'b']);
  });

  it('a reply that cannot be sent does not keep the others back', async () => {
    const log: string[] = [];
    await Promise.all([respondSoon(target(log, 'closed', true), new Uint8Array()), respondSoon(target(log, 'next'), new Uint8Array())]);
    expect(log).toEqual(['closed', 'next']);
  });
});
