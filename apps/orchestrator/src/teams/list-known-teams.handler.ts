import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { listKnownTeams } from '@headspace/contracts';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';

/** `hs.qry.orchestrator.list-known-teams`: the team directory projection, by creation time. */
@Injectable()
export class ListKnownTeamsHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, listKnownTeams, async () => {
      const { rows } = await this.pool.query<{ team_id: string; name: string; lead_agent_type: string; created_at: Date }>(
        `SELECT team_id, name, lead_agent_type, created_at FROM "${this.schema}".team_directory ORDER BY created_at, name`,
      );
      return {
        teams: rows.map((r) => ({ teamId: r.team_id, name: r.name, leadAgentType: r.lead_agent_type, createdAt: r.created_at.toISOString() })),
      };
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}
