import { Injectable } from '@nestjs/common';
import { fileLockStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { fileLockDecider, type FileLockCommand, type FileLockEvent, type FileLockState } from './file-lock.decider';

/** Read a lock's stream, decide, append at the exact version; retried on a lost race. */
@Injectable()
export class FileLockRepository {
  constructor(private readonly store: EventStore) {}

  execute(command: FileLockCommand, ctx: RequestContext): Promise<{ events: FileLockEvent[]; state: FileLockState }> {
    const streamId = fileLockStreamId(command.team, command.path);
    return withRetry(async () => {
      const history = (await this.store.readStream(streamId)) as Array<RecordedEvent & FileLockEvent>;
      const state = foldEvents(fileLockDecider, history);
      const events = fileLockDecider.decide(command, state);
      if (events.length > 0) {
        await this.store.append(streamId, events, {
          expected: history.length ? history[history.length - 1].streamVersion : 'no-stream',
          metadata: { correlationId: ctx.correlationId, causationId: ctx.causationId ?? ctx.commandId, traceparent: ctx.traceparent },
        });
      }
      return { events, state: events.reduce(fileLockDecider.evolve, state) };
    });
  }
}
