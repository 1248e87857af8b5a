import { Inject, Injectable } from '@nestjs/common';
import { respondTeamShutdown } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '../shared/served-handler';
import { commandMeta, TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider } from '../team.decider';

/** `respond-team-shutdown`: a member's shutdown_response (approve, or reject with a reason), matched by request_id; the last answer completes or aborts the shutdown. */
@Injectable()
export class RespondShutdownHandler extends ServedHandler<typeof respondTeamShutdown> {
  protected readonly definition = respondTeamShutdown;

  constructor(@Inject(NATS_CONNECTION) protected readonly nc: NatsConnection, private readonly executor: TeamCommandExecutor) {
    super();
  }

  handle(request: z.output<typeof respondTeamShutdown.request>, ctx: RequestContext) {
    const now = new Date().toISOString();
    return this.executor.execute(
      request.team,
      commandMeta(ctx),
      (state) => teamDecider.decide({ type: 'respond-shutdown', team: request.team, member: request.member, requestId: request.requestId, approve: request.approve, reason: request.reason, now }, state),
      ({ state, streamVersion }) => ({
        team: request.team,
        status: state.exists ? state.status : ('shutdown' as const),
        streamVersion,
      }),
    );
  }
}
