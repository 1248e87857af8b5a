import { Injectable } from '@nestjs/common';
import { loopEvents, type EventData, type loopStarted, type loopStopped } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

/** The loops list: one row per loop with its status, stop reason and iteration count, written from each loop event alone. */
@Injectable()
export class LoopsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'loops', types: loopEvents.map((e) => e.type), tables: ['loops'] });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    switch (event.type) {
      case 'loop.started': {
        const s = event.data as EventData<typeof loopStarted>;
        await tx.query(
          `INSERT INTO ${this.q}.loops (loop_id, team, status, persona, model, iterations, started_at) VALUES ($1, $2, 'running', $3, $4, 0, $5) ON CONFLICT (loop_id) DO NOTHING`,
          [s.loopId, s.team, s.persona, s.routing.model, s.startedAt],
        );
        return;
      }
      case 'loop.iteration-started': {
        const d = event.data as { loopId: string; iteration: number };
        await tx.query(`UPDATE ${this.q}.loops SET iterations = GREATEST(iterations, $2) WHERE loop_id = $1`, [d.loopId, d.iteration]);
        return;
      }
      case 'loop.stopped': {
        const d = event.data as EventData<typeof loopStopped>;
        const status = d.reason === 'succeeded' ? 'succeeded' : d.reason === 'failed' ? 'failed' : 'stopped';
        await tx.query(`UPDATE ${this.q}.loops SET status = $2, stop_reason = $3, ended_at = $4 WHERE loop_id = $1`, [d.loopId, status, d.reason, d.at]);
        return;
      }
    }
  }
}
