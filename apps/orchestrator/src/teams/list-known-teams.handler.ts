import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listKnownTeams } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import { TeamDirectoryRow } from './team-directory.entity';

/** `hs.qry.orchestrator.list-known-teams`: the team directory projection, by creation time. */
@Controller()
export class ListKnownTeamsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listKnownTeams)
  async handle() {
    const rows = await this.reads.rows(TeamDirectoryRow, {}, { orderBy: [{ createdAt: 'asc' }, { name: 'asc' }] });
    return { teams: rows.map(({ teamId, name, leadAgentType, createdAt }) => ({ teamId, name, leadAgentType, createdAt: createdAt.toISOString() })) };
  }
}
