import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listKnownTeams } from '@headspace/contracts';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';

/** `hs.qry.orchestrator.list-known-teams`: the team directory projection, by creation time. */
@Controller()
export class ListKnownTeamsHandler {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
  ) {}

  @MessagePattern(listKnownTeams)
  async handle() {
    const { rows } = await this.pool.query<{ team_id: string; name: string; lead_agent_type: string; created_at: Date }>(
      `SELECT team_id, name, lead_agent_type, created_at FROM "${this.schema}".team_directory ORDER BY created_at, name`,
    );
    return {
      teams: rows.map((r) => ({ teamId: r.team_id, name: r.name, leadAgentType: r.lead_agent_type, createdAt: r.created_at.toISOString() })),
    };
  }
}
