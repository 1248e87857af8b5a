import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { createTeam, teamStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, idFromCommand, priorResultIn, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { teamDecider, type TeamEvent } from '../team.decider';

/** `hs.cmd.team-manager.create-team`: read the team's stream, decide, append (no-stream for a new name). */
@Controller()
export class CreateTeamHandler {
  constructor(private readonly store: EventStore) {}

  /** A lost race (two creators of one name) is retried on a fresh read, which then refuses the duplicate. */
  @MessagePattern(createTeam)
  handle(@Payload() request: z.output<typeof createTeam.request>, @Ctx() ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    return withRetry(() => this.attempt(request, ctx, commandId), { maxAttempts: 3 });
  }

  private async attempt(request: z.output<typeof createTeam.request>, ctx: RequestContext, commandId: string) {
    const streamId = teamStreamId(request.name);
    // Keyed by name too: an idempotency key reused for another team must not mint the same id.
    const teamId = idFromCommand(commandId, `team:${request.name}`);
    const history = (await this.store.readStream(streamId)) as Array<RecordedEvent & TeamEvent>;
    const prior = priorResultIn(history, commandId);
    if (prior) return { teamId, name: request.name, streamVersion: prior.nextExpectedVersion.toString() };
    const events = teamDecider.decide(
      {
        type: 'create-team',
        teamId,
        name: request.name,
        description: request.description,
        leadAgentType: request.leadAgentType,
        metadata: request.metadata,
        sandbox: request.sandbox,
        defaultModel: request.defaultModel,
        maxSpawnDepth: request.maxSpawnDepth,
        now: new Date().toISOString(),
      },
      foldEvents(teamDecider, history),
    );
    const result = await this.store.append(streamId, events, {
      expected: history.length ? history[history.length - 1].streamVersion : 'no-stream',
      commandId,
      metadata: { correlationId: ctx.correlationId, causationId: ctx.causationId ?? commandId, traceparent: ctx.traceparent, tracestate: ctx.tracestate },
    });
    return { teamId, name: request.name, streamVersion: result.nextExpectedVersion.toString() };
  }
}
