import { Injectable } from '@nestjs/common';
import type { EventData, taskCompleted } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { EventProcessor } from '@headspace/platform';
import { FileLockRepository } from '../file-lock.repository';

type Completed = RecordedEvent & { type: 'task.completed'; data: EventData<typeof taskCompleted> };

/**
 * Seed 003 Req 6.4 / seed 004 F5: when a task completes, the locks its owner holds go back. It tails
 * the team-manager's own log, reads the holder's locks from the file-locks read model and releases
 * each against the lock's own stream (a path another teammate took since is left alone). Command ids
 * derive from the completion event, so a replay after a crash releases nothing twice. It does not
 * wait for the read model: inside its batch transaction that wait could never end (the fence stops
 * at the batch's own transaction); a lock taken in the read model's last moments before the
 * completion stays until its holder's next completion or until it goes stale.
 */
@Injectable()
export class ReleaseLocksOnCompletion extends EventProcessor<Completed> {
  constructor(
    store: EventStore,
    private readonly locks: FileLockRepository,
  ) {
    super(store, { name: 'process:release-locks-on-completion', types: ['task.completed'], batchSize: 50 });
  }

  protected async handle(events: Completed[]): Promise<void> {
    for (const event of events) {
      const { team, owner, taskId } = event.data;
      await this.locks.releaseAllOf(team, owner, {
        now: event.data.completedAt,
        ctxFor: (path) => ({ commandId: `release-on-completion:${event.eventId}:${path}`, causationId: event.eventId, correlationId: `task:${team}:${taskId}` }),
      });
    }
  }
}
