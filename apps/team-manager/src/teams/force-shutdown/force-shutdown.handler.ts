import { Inject, Injectable } from '@nestjs/common';
import { forceTeamShutdown } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '../shared/served-handler';
import { commandMeta, TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider, type TeamEvent } from '../team.decider';

/** `force-team-shutdown`: ends the team now; members that had not answered are terminated and recorded. */
@Injectable()
export class ForceShutdownHandler extends ServedHandler<typeof forceTeamShutdown> {
  protected readonly definition = forceTeamShutdown;

  constructor(@Inject(NATS_CONNECTION) protected readonly nc: NatsConnection, private readonly executor: TeamCommandExecutor) {
    super();
  }

  handle(request: z.output<typeof forceTeamShutdown.request>, ctx: RequestContext) {
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
