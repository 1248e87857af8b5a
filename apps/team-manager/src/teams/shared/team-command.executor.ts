import { Injectable } from '@nestjs/common';
import { teamStreamId, type EventMetadata } from '@headspace/contracts';
import { EventStore, handleCommand, type CommandContext } from '@headspace/event-store';
import { randomUUID } from 'node:crypto';
import { teamDecider, type TeamEvent, type TeamState } from '../team.decider';

/** A command's context with its id fixed (handlers derive member, shutdown and request ids from it); `metadata` wins over the context's. */
export type CommandMeta = CommandContext & { commandId: string; metadata?: EventMetadata };

export interface Decided {
  /** The events this command appended (on a retried command: the ones its first attempt appended). */
  events: TeamEvent[];
  /** The team after the command (on a retried command: as its first attempt left it). */
  state: TeamState;
  streamVersion: string;
  replayed: boolean;
}

export function commandMeta(ctx: CommandContext): CommandMeta {
  return { ...ctx, commandId: ctx.commandId ?? randomUUID() };
}

/**
 * The team stream's use of the one command handler: every command of a team (spawns, idles,
 * shutdowns) shares its roster, so they take the stream's turn instead of racing for it.
 */
@Injectable()
export class TeamCommandExecutor {
  constructor(private readonly store: EventStore) {}

  async execute<R>(team: string, meta: CommandMeta, decide: (state: TeamState) => TeamEvent[], respond: (decided: Decided) => R): Promise<R> {
    const decider = { ...teamDecider, decide: (_command: null, state: TeamState) => decide(state) };
    const { metadata, ...ctx } = meta;
    const outcome = await handleCommand(this.store, decider, teamStreamId(team), null, ctx, { turn: true, metadata });
    return respond({ events: outcome.events, state: outcome.state, streamVersion: outcome.streamVersion.toString(), replayed: outcome.replayed });
  }
}
