import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { announceTeammateCompletion } from '@headspace/contracts';
import { idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { commandMeta, TeamCommandExecutor } from '../../teams/shared/team-command.executor';
import { teamDecider } from '../../teams/team.decider';

/** `announce-teammate-completion`: the announce flow — a teammate reports its result, addressed to the lead. */
@Controller()
export class AnnounceCompletionHandler {
  constructor(private readonly executor: TeamCommandExecutor) {}

  @MessagePattern(announceTeammateCompletion)
  handle(@Payload() request: z.output<typeof announceTeammateCompletion.request>, @Ctx() ctx: RequestContext) {
    const meta = commandMeta(ctx);
    const command = {
      type: 'announce-teammate-completion' as const,
      team: request.team,
      member: request.member,
      announcementId: idFromCommand(meta.commandId, `announcement:${request.team}:${request.member}`),
      outcome: request.outcome,
      summary: request.summary,
      result: request.result,
      now: new Date().toISOString(),
    };
    return this.executor.execute(
      request.team,
      meta,
      (state) => teamDecider.decide(command, state),
      ({ events, streamVersion }) => {
        const announced = events.find((e) => e.type === 'teammate.announced');
        if (announced?.type !== 'teammate.announced') throw new Error('announce recorded no teammate.announced event');
        return { announcementId: announced.data.announcementId, to: announced.data.to, streamVersion };
      },
    );
  }
}
