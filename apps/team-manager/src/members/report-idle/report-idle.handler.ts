import { Inject, Injectable } from '@nestjs/common';
import { reportTeammateIdle } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '../../teams/shared/served-handler';
import { commandMeta, TeamCommandExecutor } from '../../teams/shared/team-command.executor';
import { teamDecider } from '../../teams/team.decider';

/** `report-teammate-idle`: a teammate finished its turn; during a shutdown this counts as approving its request. */
@Injectable()
export class ReportIdleHandler extends ServedHandler<typeof reportTeammateIdle> {
  protected readonly definition = reportTeammateIdle;

  constructor(@Inject(NATS_CONNECTION) protected readonly nc: NatsConnection, private readonly executor: TeamCommandExecutor) {
    super();
  }

  handle(request: z.output<typeof reportTeammateIdle.request>, ctx: RequestContext) {
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
