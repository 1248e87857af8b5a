import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EventRegistry, teamCreated, teamManagerEvents, type EventData } from '@headspace/contracts';
import { createConsumer, ensureStream, eventStreamFor, type ConsumedEvent, type EventConsumer } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool, PoolClient } from 'pg';

const registry = new EventRegistry(teamManagerEvents);

/** Projects `team.created` from the team-manager's stream into `orchestrator.team_directory`. */
@Injectable()
export class TeamDirectoryConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  static readonly durable = 'orchestrator-team-directory';
  private readonly logger = new Logger('TeamDirectory');
  private consumer?: EventConsumer;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Declared here too (idempotently), so the orchestrator can start before the team-manager.
    const stream = eventStreamFor('team-manager');
    await ensureStream(await jetstreamManager(this.nc), stream);
    this.consumer = await createConsumer({
      js: jetstream(this.nc),
      pool: this.pool,
      schema: this.schema,
      stream: stream.name,
      durable: TeamDirectoryConsumer.durable,
      filterSubjects: teamCreated.subject,
      decode: (event) => ({ ...event, data: registry.parse(event.type, event.data) }),
      handle: (event, tx) => this.project(event as ConsumedEvent<EventData<typeof teamCreated>>, tx),
      onError: (error) => this.logger.warn(`team directory: ${(error as Error).message}`),
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  private async project(event: ConsumedEvent<EventData<typeof teamCreated>>, tx: PoolClient): Promise<void> {
    const team = event.data;
    await tx.query(
      `INSERT INTO "${this.schema}".team_directory (team_id, name, lead_agent_type, created_at, source_event_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (team_id) DO NOTHING`,
      [team.teamId, team.name, team.leadAgentType, team.createdAt, event.eventId],
    );
  }
}
