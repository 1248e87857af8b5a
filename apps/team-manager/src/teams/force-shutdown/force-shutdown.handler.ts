import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { forceTeamShutdown } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { commandMeta, TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider, type TeamEvent } from '../team.decider';

/** `force-team-shutdown`: ends the team now; members that had not answered are terminated and recorded. */
@Controller()
export class ForceShutdownHandler {
  constructor(private readonly executor: TeamCommandExecutor) {}

  @MessagePattern(forceTeamShutdown)
  handle(@Payload() request: z.output<typeof forceTeamShutdown.request>, @Ctx() ctx: RequestContext) {
    const now = new Date().toISOString();
    return this.executor.execute(
      request.team,
      commandMeta(ctx),
      (state) => teamDecider.decide({ type: 'force-shutdown', team: request.team, reason: request.reason, now }, state),
      ({ events, state, streamVersion }) => ({
        team: request.team,
        status: state.exists ? state.status : ('shutdown' as const),
        streamVersion,
        unanswered: unansweredOf(events),
      }),
    );
  }
}

export function unansweredOf(events: TeamEvent[]): string[] {
  const completed = events.find((e) => e.type === 'team.shutdown-completed');
  return completed?.type === 'team.shutdown-completed' ? completed.data.unanswered : [];
}
