import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { completeTeamShutdown } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { commandMeta, TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider } from '../team.decider';

/** `complete-team-shutdown`: the lead's cleanup, refused with TEAM.MEMBERS_ACTIVE while any member is live. */
@Controller()
export class CompleteShutdownHandler {
  constructor(private readonly executor: TeamCommandExecutor) {}

  @MessagePattern(completeTeamShutdown)
  handle(@Payload() request: z.output<typeof completeTeamShutdown.request>, @Ctx() ctx: RequestContext) {
    const now = new Date().toISOString();
    return this.executor.execute(
      request.team,
      commandMeta(ctx),
      (state) => teamDecider.decide({ type: 'complete-shutdown', team: request.team, now }, state),
      ({ state, streamVersion }) => ({
        team: request.team,
        status: state.exists ? state.status : ('shutdown' as const),
        streamVersion,
      }),
    );
  }
}
