import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { sendTogether } from './send-together';

describe('sendTogether', () => {
  it('starts the sends queued in one turn together after that turn, each in its own caller context', async () => {
    const caller = new AsyncLocalStorage<string>();
    const started: Array<{ who: string | undefined; tick: number }> = [];
    let tick = 0;
    const timer = setInterval(() => tick++, 0);
    const queueFrom = (who: string) =>
      caller.run(who, () =>
        sendTogether(async () => {
          started.push({ who: caller.getStore(), tick });
          return `${who} sent`;
        }),
      );
    const answers = Promise.all([queueFrom('a'), queueFrom('b'), Promise.resolve().then(() => queueFrom('c'))]);
    expect(started).toEqual([]);
    expect(await answers).toEqual(['a sent', 'b sent', 'c sent']);
    clearInterval(timer);
    expect(started.map((s) => s.who)).toEqual(['a', 'b', 'c']);
    expect(new Set(started.map((s) => s.tick)).size).toBe(1);
  });

  it('passes a failed send to its own caller only', async () => {
    const failing = sendTogether(() => Promise.reject(new Error('no responders')));
    const fine = sendTogether(() => Promise.resolve('ok'));
    await expect(failing).rejects.toThrow('no responders');
    await expect(fine).resolves.toBe('ok');
  });
});
