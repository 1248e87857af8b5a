import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { reportTeammateIdle } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { commandMeta, TeamCommandExecutor } from '../../teams/shared/team-command.executor';
import { teamDecider } from '../../teams/team.decider';

/** `report-teammate-idle`: a teammate finished its turn; during a shutdown this counts as approving its request. */
@Controller()
export class ReportIdleHandler {
  constructor(private readonly executor: TeamCommandExecutor) {}

  @MessagePattern(reportTeammateIdle)
  handle(@Payload() request: z.output<typeof reportTeammateIdle.request>, @Ctx() ctx: RequestContext) {
    const command = { type: 'report-teammate-idle' as const, team: request.team, member: request.member, summary: request.summary, now: new Date().toISOString() };
    return this.executor.execute(
      request.team,
      commandMeta(ctx),
      (state) => teamDecider.decide(command, state),
      ({ events, state, streamVersion }) => ({
        team: request.team,
        member: request.member,
        status: (state.exists && state.members[request.member]?.status) || 'idle',
        countedAsShutdownApproval: events.some((e) => e.type === 'team.shutdown-responded'),
        streamVersion,
      }),
    );
  }
}
