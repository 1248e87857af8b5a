import { Injectable } from '@nestjs/common';
import { teamStreamId, type EventMetadata } from '@headspace/contracts';
import { EventStore, foldEvents, priorResultIn, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { randomUUID } from 'node:crypto';
import { teamDecider, type TeamEvent, type TeamState } from '../team.decider';
import { KeyedQueue } from './keyed-queue';
import { inStreamTurn } from './stream-turn';

export interface CommandMeta {
  commandId: string;
  metadata: EventMetadata;
}

export interface Decided {
  /** The events this command appended (on a retried command: the ones its first attempt appended). */
  events: TeamEvent[];
  /** The team after the command. */
  state: TeamState;
  streamVersion: string;
  replayed: boolean;
}

export function commandMeta(ctx: RequestContext): CommandMeta {
  const commandId = ctx.commandId ?? randomUUID();
  return {
    commandId,
    metadata: { correlationId: ctx.correlationId, causationId: ctx.causationId ?? commandId, traceparent: ctx.traceparent, tracestate: ctx.tracestate },
  };
}

/**
 * Read → decide → append on a team's stream with the exact expected version, in the stream's turn
 * (`inStreamTurn`): the commands of one team are serialised in this instance by a queue (one
 * connection waits, not one per request) and across replicas by the turn's advisory lock, so N
 * concurrent spawns all land and none fails for contention. A retried command (same id) gets its
 * first result back.
 */
@Injectable()
export class TeamCommandExecutor {
  /** Per-team queue of this instance: its own concurrent commands on one team never race each other. */
  private readonly queue = new KeyedQueue();

  constructor(private readonly store: EventStore) {}

  async execute<R>(team: string, meta: CommandMeta, decide: (state: TeamState) => TeamEvent[], respond: (decided: Decided) => R): Promise<R> {
    const decided = await this.queue.run(team, () => withRetry(() => this.attempt(team, meta, decide), { maxAttempts: 8 }));
    return respond(decided);
  }

  private attempt(team: string, meta: CommandMeta, decide: (state: TeamState) => TeamEvent[]): Promise<Decided> {
    const streamId = teamStreamId(team);
    return inStreamTurn(this.store, streamId, async (client) => {
      const history = (await this.store.readStream(streamId, { client })) as Array<RecordedEvent & TeamEvent>;
      const prior = priorResultIn(history, meta.commandId);
      const state = foldEvents(teamDecider, history);
      if (prior) {
        const ids = new Set(prior.eventIds);
        const events = history.filter((e) => ids.has(e.eventId)).map((e) => ({ type: e.type, data: e.data }) as TeamEvent);
        // The team as the first attempt left it: a retry answers the first answer, not what happened since.
        const asLeft = foldEvents(teamDecider, history.filter((e) => e.streamVersion <= prior.nextExpectedVersion));
        return { events, state: asLeft, streamVersion: prior.nextExpectedVersion.toString(), replayed: true };
      }
      const events = decide(state);
      const result = await this.store.append(streamId, events, {
        expected: history.length ? history[history.length - 1].streamVersion : 'no-stream',
        commandId: meta.commandId,
        metadata: meta.metadata,
        client,
      });
      return { events, state: foldEvents(teamDecider, [...history, ...events]), streamVersion: result.nextExpectedVersion.toString(), replayed: result.replayed };
    });
  }
}
