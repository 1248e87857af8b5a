import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_MAX_CONCURRENT_AGENTS, listPersonas, type Persona } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';

/** `list-personas`: the persona board (projection): who is free or active, the pools and the wait queue, optionally for one pool. */
@Injectable()
export class ListPersonasHandler extends ServedHandler<typeof listPersonas> {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(listPersonas, nc);
    this.q = quoteIdent(schema);
  }

  async handle(request: z.output<typeof listPersonas.request>) {
    const q = this.q;
    const [settings, active, pools, roster, queue] = await Promise.all([
      this.pool.query<{ max_concurrent_agents: number }>(`SELECT max_concurrent_agents FROM ${q}.persona_settings WHERE id = 1`),
      this.pool.query<{ persona_id: string; lease_id: string; task_id: string | null }>(
        `SELECT persona_id, lease_id, task_id FROM ${q}.persona_requests WHERE status = 'granted'`,
      ),
      this.pool.query<{ pool: string; personas: string[] }>(
        `SELECT pool, personas FROM ${q}.persona_pools WHERE $1::text IS NULL OR pool = $1 ORDER BY position`,
        [request.pool ?? null],
      ),
      this.pool.query<{ persona_id: string; name: string; description: string; role_type: Persona['roleType']; mode: Persona['mode']; pools: string[] }>(
        `SELECT persona_id, name, description, role_type, mode, pools FROM ${q}.persona_roster ORDER BY position`,
      ),
      this.pool.query<{ request_id: string; pool: string; task_id: string | null; position: string }>(
        `SELECT request_id, pool, task_id, row_number() OVER (ORDER BY seq) AS position
           FROM ${q}.persona_requests WHERE status = 'queued' ORDER BY seq`,
      ),
    ]);
    const leases = new Map(active.rows.map((r) => [r.persona_id, r]));
    const members = request.pool ? new Set(pools.rows.flatMap((p) => p.personas)) : null;
    return {
      maxConcurrentAgents: settings.rows[0]?.max_concurrent_agents ?? DEFAULT_MAX_CONCURRENT_AGENTS,
      activeAgents: active.rows.length,
      personas: roster.rows
        .filter((r) => !members || members.has(r.persona_id))
        .map((r) => {
          const lease = leases.get(r.persona_id);
          return {
            personaId: r.persona_id,
            name: r.name,
            description: r.description,
            roleType: r.role_type,
            mode: r.mode,
            pools: r.pools,
            status: lease ? ('active' as const) : ('available' as const),
            ...(lease ? { leaseId: lease.lease_id, ...(lease.task_id ? { taskId: lease.task_id } : {}) } : {}),
          };
        }),
      pools: pools.rows.map((p) => ({ pool: p.pool, personas: p.personas })),
      queue: queue.rows
        .filter((r) => !request.pool || r.pool === request.pool)
        .map((r) => ({ requestId: r.request_id, pool: r.pool, ...(r.task_id ? { taskId: r.task_id } : {}), position: Number(r.position) })),
    };
  }
}
