import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { openInbox, spawnTeammate } from '@headspace/contracts';
import { idFromCommand, KeyedQueue } from '@headspace/event-store';
import { request as sendRequest, type RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { commandMeta, TeamCommandExecutor } from '../../teams/shared/team-command.executor';
import { teamDecider } from '../../teams/team.decider';
import { TEAMS_CONFIG, type TeamsConfig } from '../../teams/teams.config';

/**
 * `spawn-teammate`: registers a teammate in its team (decided against the team stream: duplicate
 * names, depth limit, team status) and returns its spawn spec — session key
 * `agent:{agentId}:teammate:{uuid}`, lane `teammate`, model, agent type, inherited sandbox, depth,
 * initial prompt. The orchestrator runs the session from it.
 *
 * The teammate's inbox is opened through the mailbox feature's own command (`open-inbox`, idempotent,
 * its command id derived from this one) after the registration is recorded: if that fails the spawn
 * answers with the error, and the caller's retry (same command id) replays the registration and opens
 * the inbox again — at least once, never twice.
 */
@Controller()
export class SpawnTeammateHandler {
  /** Inbox openings of one team go one at a time: concurrent spawns must not exhaust open-inbox's version retries. */
  private readonly inboxes = new KeyedQueue();

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly executor: TeamCommandExecutor,
    @Inject(TEAMS_CONFIG) private readonly config: TeamsConfig,
  ) {}

  @MessagePattern(spawnTeammate)
  async handle(@Payload() request: z.output<typeof spawnTeammate.request>, @Ctx() ctx: RequestContext) {
    const meta = commandMeta(ctx);
    const purpose = `teammate:${request.team}:${request.name}`;
    const command = {
      type: 'spawn-teammate' as const,
      team: request.team,
      memberId: idFromCommand(meta.commandId, purpose),
      sessionUuid: idFromCommand(meta.commandId, `session:${purpose}`),
      name: request.name,
      agentId: request.agentId,
      agentType: request.agentType,
      model: request.model,
      sandbox: request.sandbox,
      task: request.task,
      parent: request.parent,
      defaultMaxDepth: this.config.TEAMMATE_MAX_DEPTH,
      now: new Date().toISOString(),
    };
    const spec = await this.executor.execute(
      request.team,
      meta,
      (state) => teamDecider.decide(command, state),
      ({ events, streamVersion }) => {
        const spawned = events.find((e) => e.type === 'teammate.spawned');
        if (spawned?.type !== 'teammate.spawned') throw new Error('spawn-teammate recorded no teammate.spawned event');
        const { spawnedAt: _spawnedAt, ...spec } = spawned.data;
        return { ...spec, team: request.team, streamVersion };
      },
    );
    const inbox = { team: request.team, memberId: request.name };
    await this.inboxes.run(request.team, () =>
      sendRequest(this.nc, openInbox, { ...inbox, role: 'member' }, {
        commandId: idFromCommand(meta.commandId, `open-inbox:${purpose}`),
        correlationId: ctx.correlationId,
        causationId: meta.commandId,
      }),
    );
    return { ...spec, inbox };
  }
}
