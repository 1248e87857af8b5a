import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_SANDBOX, ErrorCodes, getTeam, HeadspaceError, type TeamView } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { ServedHandler } from '../shared/served-handler';

/** `get-team` (query): the team's configuration, status and shutdown protocol, from the roster projection. */
@Injectable()
export class GetTeamHandler extends ServedHandler<typeof getTeam> {
  protected readonly definition = getTeam;

  constructor(
    @Inject(NATS_CONNECTION) protected readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
  ) {
    super();
  }

  async handle(request: z.output<typeof getTeam.request>, _ctx: RequestContext): Promise<TeamView> {
    const { rows } = await this.pool.query(`SELECT * FROM ${quoteIdent(this.schema)}.team_roster_teams WHERE team_name = $1`, [request.name]);
    const row = rows[0];
    if (!row) throw new HeadspaceError(ErrorCodes.teamNotFound, `Team "${request.name}" does not exist`, { field: 'name' });
    return {
      teamId: row.team_id,
      name: row.team_name,
      description: row.description,
      leadAgentType: row.lead_agent_type,
      metadata: row.metadata,
      sandbox: row.sandbox ?? DEFAULT_SANDBOX,
      defaultModel: row.default_model,
      maxSpawnDepth: row.max_spawn_depth,
      status: row.status,
      shutdown: row.shutdown,
      createdAt: (row.created_at as Date).toISOString(),
    };
  }
}
