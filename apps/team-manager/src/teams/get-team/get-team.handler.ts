import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DEFAULT_SANDBOX, ErrorCodes, getTeam, HeadspaceError, type TeamView } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { RosterTeamRow } from '../roster/team-roster.entity';

/** `get-team` (query): the team's configuration, status and shutdown protocol, from the roster projection. */
@Controller()
export class GetTeamHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(getTeam)
  async handle(@Payload() request: z.output<typeof getTeam.request>): Promise<TeamView> {
    const row = await this.reads.one(RosterTeamRow, { teamName: request.name });
    if (!row) throw new HeadspaceError(ErrorCodes.teamNotFound, `Team "${request.name}" does not exist`, { field: 'name' });
    const { teamId, teamName, description, leadAgentType, metadata, sandbox, defaultModel, maxSpawnDepth, status, shutdown, createdAt } = row;
    return {
      teamId,
      name: teamName,
      description: description ?? null,
      leadAgentType,
      metadata,
      sandbox: sandbox ?? DEFAULT_SANDBOX,
      defaultModel: defaultModel ?? null,
      maxSpawnDepth: maxSpawnDepth ?? null,
      status,
      shutdown: shutdown ?? null,
      createdAt: createdAt.toISOString(),
    };
  }
}
