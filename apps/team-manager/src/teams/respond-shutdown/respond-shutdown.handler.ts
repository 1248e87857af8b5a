import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { respondTeamShutdown } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { commandMeta, TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider } from '../team.decider';

/** `respond-team-shutdown`: a member's shutdown_response (approve, or reject with a reason), matched by request_id; the last answer completes or aborts the shutdown. */
@Controller()
export class RespondShutdownHandler {
  constructor(private readonly executor: TeamCommandExecutor) {}

  @MessagePattern(respondTeamShutdown)
  handle(@Payload() request: z.output<typeof respondTeamShutdown.request>, @Ctx() ctx: RequestContext) {
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
