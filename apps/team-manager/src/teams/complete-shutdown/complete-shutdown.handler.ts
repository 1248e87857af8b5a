import { Inject, Injectable } from '@nestjs/common';
import { completeTeamShutdown } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '../shared/served-handler';
import { commandMeta, TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider } from '../team.decider';

/** `complete-team-shutdown`: the lead's cleanup, refused with TEAM.MEMBERS_ACTIVE while any member is live. */
@Injectable()
export class CompleteShutdownHandler extends ServedHandler<typeof completeTeamShutdown> {
  protected readonly definition = completeTeamShutdown;

  constructor(@Inject(NATS_CONNECTION) protected readonly nc: NatsConnection, private readonly executor: TeamCommandExecutor) {
    super();
  }

  handle(request: z.output<typeof completeTeamShutdown.request>, ctx: RequestContext) {
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
