import { priorOutcome as priorOutcomeOf, type RecordedEvent } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { fileLockDecider, type FileLockEvent } from './file-lock.decider';

const priorOutcome = (history: RecordedEvent[], commandId: string) => priorOutcomeOf(fileLockDecider, history, commandId);

const t0 = '2026-11-22T10:00:00.000Z';
const t6 = '2026-11-22T10:06:00.000Z';
const t7 = '2026-11-22T10:07:00.000Z';
const base = { team: 'alpha', path: 'src/auth.ts' };

/** A recorded history: each event with the command id that appended it. */
const recorded = (...events: Array<[string, FileLockEvent]>): Array<RecordedEvent & FileLockEvent> =>
  events.map(([commandId, event], i) => ({
    ...event,
    eventId: `00000000-0000-0000-0000-00000000000${i}`,
    streamId: `filelock-alpha:src/auth.ts`,
    streamVersion: BigInt(i + 1),
    globalPosition: BigInt(i + 1),
    transactionId: String(i + 1),
    category: 'filelock',
    schemaVersion: 1,
    metadata: { commandId },
    recordedAt: new Date(t0),
  })) as Array<RecordedEvent & FileLockEvent>;

describe('a file-lock command retried with the same command id', () => {
  it('given nothing appended by it, when looked up, then there is no prior outcome (it is decided afresh)', () => {
    const history = recorded(['c1', { type: 'filelock.acquired', data: { ...base, holder: 'con', acquiredAt: t0 } }]);
    expect(priorOutcome(history, 'c2')).toBeNull();
  });

  it('given its stale-lock break and later moves, when looked up, then its own events and the lock as they left it', () => {
    const broke: FileLockEvent = { type: 'filelock.acquired', data: { ...base, holder: 'al', acquiredAt: t6, brokeStaleLockOf: 'con' } };
    const history = recorded(
      ['c1', { type: 'filelock.acquired', data: { ...base, holder: 'con', acquiredAt: t0 } }],
      ['c2', broke],
      ['c3', { type: 'filelock.released', data: { ...base, holder: 'al', releasedAt: t7, reason: 'unlocked' } }],
      ['c4', { type: 'filelock.acquired', data: { ...base, holder: 'may', acquiredAt: t7 } }],
    );
    expect(priorOutcome(history, 'c2')).toMatchObject({ events: [broke], state: { held: true, holder: 'al', since: t6, touchedAt: t6 }, replayed: true });
    expect(priorOutcome(history, 'c3')).toMatchObject({
      events: [{ type: 'filelock.released', data: { ...base, holder: 'al', releasedAt: t7, reason: 'unlocked' } }],
      state: { held: false },
      replayed: true,
    });
  });
});
