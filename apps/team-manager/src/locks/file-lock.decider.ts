import { ErrorCodes, HeadspaceError, type EventData, type fileLockAcquired, type fileLockRefreshed, type fileLockReleased } from '@headspace/contracts';
import { decideByType, type Decider } from '@headspace/event-store';

export type FileLockEvent =
  | { type: 'filelock.acquired'; data: EventData<typeof fileLockAcquired> }
  | { type: 'filelock.refreshed'; data: EventData<typeof fileLockRefreshed> }
  | { type: 'filelock.released'; data: EventData<typeof fileLockReleased> };

export type FileLockState = { held: false } | { held: true; holder: string; since: string; touchedAt: string };

export interface LockFile {
  type: 'lock';
  team: string;
  path: string;
  holder: string;
  now: string;
  staleAfterMs: number;
}
export interface UnlockFile {
  type: 'unlock';
  team: string;
  path: string;
  holder: string;
  now: string;
  reason: 'unlocked' | 'task-completed';
}
export type FileLockCommand = LockFile | UnlockFile;

/**
 * One lock per workspace path (seed 003 Req 6.4): free → acquired; held by the same teammate →
 * refreshed; held by another → refused with the holder named, unless its last touch is older than
 * the stale limit, in which case the stale lock is broken and the record says whose it was.
 */
function lock({ team, path, holder, now, staleAfterMs }: LockFile, state: FileLockState): FileLockEvent[] {
  if (!state.held) return [{ type: 'filelock.acquired', data: { team, path, holder, acquiredAt: now } }];
  if (state.holder === holder) return [{ type: 'filelock.refreshed', data: { team, path, holder, refreshedAt: now } }];
  if (Date.parse(now) - Date.parse(state.touchedAt) > staleAfterMs) {
    return [{ type: 'filelock.acquired', data: { team, path, holder, acquiredAt: now, brokeStaleLockOf: state.holder } }];
  }
  throw new HeadspaceError(ErrorCodes.lockHeld, `${path} is locked by ${state.holder} since ${state.since}`, {
    field: 'path',
    details: { holder: state.holder, since: state.since },
  });
}

/** Only the holder unlocks; unlocking a free path decides nothing. */
function unlock({ team, path, holder, now, reason }: UnlockFile, state: FileLockState): FileLockEvent[] {
  if (!state.held) return [];
  if (state.holder !== holder) {
    throw new HeadspaceError(ErrorCodes.lockNotHolder, `${path} is locked by ${state.holder}, not ${holder}`, { field: 'holder', details: { holder: state.holder } });
  }
  return [{ type: 'filelock.released', data: { team, path, holder, releasedAt: now, reason } }];
}

export const fileLockDecider: Decider<FileLockCommand, FileLockState, FileLockEvent> = {
  initialState: () => ({ held: false }),
  decide: decideByType<FileLockCommand, FileLockState, FileLockEvent>({ lock, unlock }),
  evolve(state, event) {
    switch (event.type) {
      case 'filelock.acquired':
        return { held: true, holder: event.data.holder, since: event.data.acquiredAt, touchedAt: event.data.acquiredAt };
      case 'filelock.refreshed':
        return state.held ? { ...state, touchedAt: event.data.refreshedAt } : state;
      case 'filelock.released':
        return { held: false };
    }
  },
};
