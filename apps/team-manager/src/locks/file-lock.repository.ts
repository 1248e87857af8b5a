import { Injectable } from '@nestjs/common';
import { ErrorCodes, fileLockStreamId, HeadspaceError, teamStreamId } from '@headspace/contracts';
import { ConcurrencyError, EventStore, foldEvents, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { randomUUID } from 'node:crypto';
import { fileLockDecider, type FileLockCommand, type FileLockEvent, type FileLockState } from './file-lock.decider';

export interface FileLockOutcome {
  /** The events this command appended (on a retried command: the ones its first attempt appended). */
  events: FileLockEvent[];
  /** The lock right after this command's events (on a retried command: as its first attempt left it). */
  state: FileLockState;
  /** True when this command id had already been appended: nothing new was written. */
  replayed: boolean;
}

/**
 * A command's earlier outcome on a lock's stream, read from the history in hand (events carry their
 * command id in their metadata): its events, and the lock as they left it. Null when the command has
 * appended nothing yet (or decided nothing: a no-op unlock is simply decided again).
 */
export function priorOutcome(history: Array<RecordedEvent & FileLockEvent>, commandId: string): FileLockOutcome | null {
  const prior = history.filter((e) => e.metadata.commandId === commandId);
  if (prior.length === 0) return null;
  const last = prior[prior.length - 1].streamVersion;
  return {
    events: prior.map((e) => ({ type: e.type, data: e.data }) as FileLockEvent),
    state: foldEvents(fileLockDecider, history.filter((e) => e.streamVersion <= last)),
    replayed: true,
  };
}

/**
 * Read a lock's stream, decide, append at the exact version with the request's command id; retried
 * on a lost race. A team that does not exist is LOCK.UNKNOWN_TEAM, nothing written. A retried
 * command (same id, e.g. after a NATS timeout) appends nothing and is answered as its first attempt
 * was, even if the lock has moved on since (a retried lock is not LOCK.HELD because someone took the
 * path after it; a retried unlock still says it released).
 */
@Injectable()
export class FileLockRepository {
  constructor(private readonly store: EventStore) {}

  execute(command: FileLockCommand, ctx: RequestContext): Promise<FileLockOutcome> {
    const streamId = fileLockStreamId(command.team, command.path);
    const commandId = ctx.commandId ?? randomUUID();
    return withRetry(async () => {
      const history = (await this.store.readStream(streamId)) as Array<RecordedEvent & FileLockEvent>;
      const prior = priorOutcome(history, commandId);
      if (prior) return prior;
      // A lock's stream exists only inside an existing team (teams are never deleted): check once, on the path's first command.
      if (history.length === 0) await this.requireTeam(command.team);
      const state = foldEvents(fileLockDecider, history);
      const events = fileLockDecider.decide(command, state);
      if (events.length > 0) {
        const expected = history.length ? history[history.length - 1].streamVersion : 'no-stream';
        const result = await this.store.append(streamId, events, {
          expected,
          commandId,
          metadata: { correlationId: ctx.correlationId, causationId: ctx.causationId ?? commandId, traceparent: ctx.traceparent, tracestate: ctx.tracestate },
        });
        // The same command got in first (it raced itself): answer from the log on a fresh read.
        if (result.replayed) throw new ConcurrencyError(streamId, expected, result.nextExpectedVersion);
      }
      return { events, state: events.reduce(fileLockDecider.evolve, state), replayed: false };
    });
  }

  async requireTeam(team: string): Promise<void> {
    if ((await this.store.streamVersion(teamStreamId(team))) === null) {
      throw new HeadspaceError(ErrorCodes.lockUnknownTeam, `Team "${team}" does not exist`, { field: 'team', details: { team } });
    }
  }
}
