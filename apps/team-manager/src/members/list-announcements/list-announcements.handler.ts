import { Inject, Injectable } from '@nestjs/common';
import { listTeammateAnnouncements } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '../../teams/shared/served-handler';
import { RosterReader } from '../roster.reader';

/** `list-teammate-announcements` (query): completion announcements received by the lead, oldest first. */
@Injectable()
export class ListAnnouncementsHandler extends ServedHandler<typeof listTeammateAnnouncements> {
  protected readonly definition = listTeammateAnnouncements;

  constructor(@Inject(NATS_CONNECTION) protected readonly nc: NatsConnection, private readonly roster: RosterReader) {
    super();
  }

  async handle(request: z.output<typeof listTeammateAnnouncements.request>, _ctx: RequestContext) {
    await this.roster.team(request.team);
    return { announcements: await this.roster.announcements(request.team, request.to) };
  }
}
