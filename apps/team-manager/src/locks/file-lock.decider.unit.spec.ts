import { describe, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { fileLockDecider, type FileLockEvent } from './file-lock.decider';

const t0 = '2026-11-22T10:00:00.000Z';
const t1 = '2026-11-22T10:01:00.000Z';
const t6 = '2026-11-22T10:06:00.000Z';
const base = { team: 'alpha', path: 'src/auth.ts' };
const lock = (holder: string, now: string) => ({ type: 'lock' as const, ...base, holder, now, staleAfterMs: 300_000 });
const acquired = (holder: string, at = t0): FileLockEvent => ({ type: 'filelock.acquired', data: { ...base, holder, acquiredAt: at } });
const spec = () => DeciderSpec.for(fileLockDecider);

describe('file lock decider', () => {
  it('a free path is acquired by the first teammate', () => {
    spec().given([]).when(lock('con', t0)).then([acquired('con')]);
  });

  it('the holder locking again refreshes its lock', () => {
    spec().given([acquired('con')]).when(lock('con', t1)).then([{ type: 'filelock.refreshed', data: { ...base, holder: 'con', refreshedAt: t1 } }]);
  });

  it('another teammate is refused with LOCK.HELD while the lock is fresh', () => {
    spec().given([acquired('con')]).when(lock('al', t1)).thenThrows((e) => (e as { code?: string }).code === 'LOCK.HELD');
  });

  it('a lock untouched for more than five minutes is broken and the breaker acquires it', () => {
    spec().given([acquired('con')]).when(lock('al', t6)).then([
      { type: 'filelock.acquired', data: { ...base, holder: 'al', acquiredAt: t6, brokeStaleLockOf: 'con' } },
    ]);
  });

  it('only the holder may unlock; unlocking a free path does nothing', () => {
    spec().given([acquired('con')]).when({ type: 'unlock', ...base, holder: 'al', now: t1, reason: 'unlocked' })
      .thenThrows((e) => (e as { code?: string }).code === 'LOCK.NOT_HOLDER');
    spec().given([]).when({ type: 'unlock', ...base, holder: 'al', now: t1, reason: 'unlocked' }).then([]);
  });
});
