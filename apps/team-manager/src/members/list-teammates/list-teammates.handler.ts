import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listTeammates } from '@headspace/contracts';
import type { z } from 'zod';
import { RosterReader } from '../roster.reader';

/** `list-teammates` (query): the team's roster — lead and teammates with role, status, session key and depth. */
@Controller()
export class ListTeammatesHandler {
  constructor(private readonly roster: RosterReader) {}

  @MessagePattern(listTeammates)
  async handle(@Payload() request: z.output<typeof listTeammates.request>) {
    await this.roster.team(request.team);
    return { team: request.team, members: await this.roster.members(request.team, request.status) };
  }
}
