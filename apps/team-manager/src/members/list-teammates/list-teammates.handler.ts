import { Inject, Injectable } from '@nestjs/common';
import { listTeammates } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '../../teams/shared/served-handler';
import { RosterReader } from '../roster.reader';

/** `list-teammates` (query): the team's roster — lead and teammates with role, status, session key and depth. */
@Injectable()
export class ListTeammatesHandler extends ServedHandler<typeof listTeammates> {
  protected readonly definition = listTeammates;

  constructor(@Inject(NATS_CONNECTION) protected readonly nc: NatsConnection, private readonly roster: RosterReader) {
    super();
  }

  async handle(request: z.output<typeof listTeammates.request>, _ctx: RequestContext) {
    await this.roster.team(request.team);
    return { team: request.team, members: await this.roster.members(request.team, request.status) };
  }
}
