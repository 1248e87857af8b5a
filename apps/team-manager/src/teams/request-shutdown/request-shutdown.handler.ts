import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { requestTeamShutdown } from '@headspace/contracts';
import { idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { commandMeta, TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider } from '../team.decider';

/**
 * `request-team-shutdown`: the lead sends a shutdown_request (own request_id) to every live member and
 * waits for their answers; with nobody to ask the team shuts down at once. Delivery of the requests to
 * the members' inboxes is the mailbox feature's (it can read `team.shutdown-requested`).
 */
@Controller()
export class RequestShutdownHandler {
  constructor(private readonly executor: TeamCommandExecutor) {}

  @MessagePattern(requestTeamShutdown)
  handle(@Payload() request: z.output<typeof requestTeamShutdown.request>, @Ctx() ctx: RequestContext) {
    const meta = commandMeta(ctx);
    const command = {
      type: 'request-shutdown' as const,
      team: request.team,
      shutdownId: idFromCommand(meta.commandId, `shutdown:${request.team}`),
      requestIdFor: (member: string) => idFromCommand(meta.commandId, `shutdown-request:${request.team}:${member}`),
      requestedBy: request.requestedBy,
      reason: request.reason,
      timeoutMs: request.timeoutMs,
      now: new Date().toISOString(),
    };
    return this.executor.execute(
      request.team,
      meta,
      (state) => teamDecider.decide(command, state),
      ({ events, state, streamVersion }) => {
        const requested = events.find((e) => e.type === 'team.shutdown-requested');
        if (requested?.type !== 'team.shutdown-requested') throw new Error('request-team-shutdown recorded no shutdown-requested event');
        return {
          team: request.team,
          status: state.exists ? state.status : 'shutdown',
          shutdownId: requested.data.shutdownId,
          requests: requested.data.requests,
          streamVersion,
        };
      },
    );
  }
}
