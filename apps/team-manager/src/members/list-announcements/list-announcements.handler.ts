import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listTeammateAnnouncements } from '@headspace/contracts';
import type { z } from 'zod';
import { RosterReader } from '../roster.reader';

/** `list-teammate-announcements` (query): completion announcements received by the lead, oldest first. */
@Controller()
export class ListAnnouncementsHandler {
  constructor(private readonly roster: RosterReader) {}

  @MessagePattern(listTeammateAnnouncements)
  async handle(@Payload() request: z.output<typeof listTeammateAnnouncements.request>) {
    await this.roster.team(request.team);
    return { announcements: await this.roster.announcements(request.team, request.to) };
  }
}
