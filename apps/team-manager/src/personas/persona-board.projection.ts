import { Injectable } from '@nestjs/common';
import { personaEvents } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { PersonaEvent } from './persona.decider';

/** The persona board: roster, pools, requests and the concurrency limit, for the list/get queries. */
@Injectable()
export class PersonaBoardProjection extends Projection<RecordedEvent & PersonaEvent> {
  constructor(store: EventStore) {
    super(store, {
      name: 'persona-board',
      types: personaEvents.map((e) => e.type),
      tables: ['persona_roster', 'persona_pools', 'persona_requests', 'persona_settings'],
    });
  }

  protected async apply(event: RecordedEvent & PersonaEvent, tx: PoolClient): Promise<void> {
    const q = this.q;
    switch (event.type) {
      case 'persona.config-loaded': {
        const d = event.data;
        await tx.query(`DELETE FROM ${q}.persona_roster`);
        for (const [i, p] of d.personas.entries()) {
          await tx.query(
            `INSERT INTO ${q}.persona_roster (persona_id, position, name, description, role_type, mode, pools, runtime) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [p.personaId, i + 1, p.name, p.description, p.roleType, p.mode, JSON.stringify(p.pools), p.runtime ?? null],
          );
        }
        await tx.query(`DELETE FROM ${q}.persona_pools`);
        for (const pool of d.pools) await this.setPool(tx, pool.pool, pool.personas);
        await this.setMax(tx, d.maxConcurrentAgents);
        break;
      }
      case 'persona.registered':
      case 'persona.updated': {
        const p = event.data.persona;
        await tx.query(
          `INSERT INTO ${q}.persona_roster (persona_id, position, name, description, role_type, mode, pools, runtime)
           VALUES ($1, (SELECT coalesce(max(position), 0) + 1 FROM ${q}.persona_roster), $2, $3, $4, $5, $6, $7)
           ON CONFLICT (persona_id) DO UPDATE SET name = excluded.name, description = excluded.description,
             role_type = excluded.role_type, mode = excluded.mode, pools = excluded.pools, runtime = excluded.runtime`,
          [p.personaId, p.name, p.description, p.roleType, p.mode, JSON.stringify(p.pools), p.runtime ?? null],
        );
        break;
      }
      case 'persona.pool-membership-set':
        await this.setPool(tx, event.data.pool, event.data.personas);
        break;
      case 'persona.max-concurrency-set':
        await this.setMax(tx, event.data.maxConcurrentAgents);
        break;
      case 'persona.request-queued': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.persona_requests (request_id, pool, task_id, agent_id, status, seq, updated_at) VALUES ($1, $2, $3, $4, 'queued', $5, $6)`,
          [d.requestId, d.pool, d.taskId ?? null, d.agentId ?? null, event.globalPosition.toString(), d.queuedAt],
        );
        break;
      }
      case 'persona.granted': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.persona_requests (request_id, pool, task_id, agent_id, status, persona_id, lease_id, seq, updated_at)
           VALUES ($1, $2, $3, $4, 'granted', $5, $6, $7, $8)
           ON CONFLICT (request_id) DO UPDATE SET status = 'granted', persona_id = excluded.persona_id, lease_id = excluded.lease_id, updated_at = excluded.updated_at`,
          [d.requestId, d.pool, d.taskId ?? null, d.agentId ?? null, d.personaId, d.leaseId, event.globalPosition.toString(), d.grantedAt],
        );
        break;
      }
      case 'persona.released':
        await tx.query(`UPDATE ${q}.persona_requests SET status = 'released', updated_at = $2 WHERE request_id = $1`, [
          event.data.requestId,
          event.data.releasedAt,
        ]);
        break;
      case 'persona.request-cancelled':
        await tx.query(`UPDATE ${q}.persona_requests SET status = 'cancelled', updated_at = $2 WHERE request_id = $1`, [
          event.data.requestId,
          event.data.cancelledAt,
        ]);
        break;
      default:
        break;
    }
  }

  private async setPool(tx: PoolClient, pool: string, personas: string[]): Promise<void> {
    await tx.query(
      `INSERT INTO ${this.q}.persona_pools (pool, position, personas)
       VALUES ($1, (SELECT coalesce(max(position), 0) + 1 FROM ${this.q}.persona_pools), $2)
       ON CONFLICT (pool) DO UPDATE SET personas = excluded.personas`,
      [pool, JSON.stringify(personas)],
    );
  }

  private async setMax(tx: PoolClient, max: number): Promise<void> {
    await tx.query(
      `INSERT INTO ${this.q}.persona_settings (id, max_concurrent_agents) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET max_concurrent_agents = excluded.max_concurrent_agents`,
      [max],
    );
  }
}
