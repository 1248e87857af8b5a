import { HeadspaceError, teamStreamId } from '@headspace/contracts';
import type { EventStore, Queryable } from '@headspace/event-store';

/**
 * Commands that act inside a team (tasks, file locks, approvals) refuse a team that does not exist
 * with their own code (`TASK.UNKNOWN_TEAM`, `LOCK.UNKNOWN_TEAM`, …) naming the field `team`, before
 * anything is written. Teams are never deleted, so one look at the team stream is enough.
 */
export async function teamMustExist(store: EventStore, team: string, code: string, client?: Queryable): Promise<void> {
  if ((await store.streamVersion(teamStreamId(team), client)) === null) {
    throw new HeadspaceError(code, `Team "${team}" does not exist`, { field: 'team', details: { team } });
  }
}
