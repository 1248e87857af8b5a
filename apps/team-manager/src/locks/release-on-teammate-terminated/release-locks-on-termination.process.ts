import { Injectable } from '@nestjs/common';
import type { EventData, teammateTerminated } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { EventProcessor } from '@headspace/platform';
import { FileLockRepository } from '../file-lock.repository';

type Terminated = RecordedEvent & { type: 'teammate.terminated'; data: EventData<typeof teammateTerminated> };

/**
 * A terminated teammate (shutdown approved, gone idle during a shutdown, forced, timed out) holds
 * no file locks: the locks it holds — by its name, or by its session key — go back, as they do when
 * one of its tasks completes (ReleaseLocksOnCompletion, whose rules this follows: it tails the
 * team-manager's own log, reads the holder's locks from the file-locks read model, releases each
 * against the lock's own stream, command ids derived from the termination event).
 */
@Injectable()
export class ReleaseLocksOnTermination extends EventProcessor<Terminated> {
  constructor(
    store: EventStore,
    private readonly locks: FileLockRepository,
  ) {
    super(store, { name: 'process:release-locks-on-termination', types: ['teammate.terminated'], batchSize: 50 });
  }

  protected async handle(events: Terminated[]): Promise<void> {
    for (const event of events) {
      const team = event.streamId.slice('team-'.length);
      for (const holder of [event.data.name, event.data.sessionKey]) {
        await this.locks.releaseAllOf(team, holder, {
          now: event.data.terminatedAt,
          ctxFor: (path) => ({ commandId: `release-on-termination:${event.eventId}:${path}`, causationId: event.eventId, correlationId: `teammate:${team}:${event.data.name}` }),
        });
      }
    }
  }
}
