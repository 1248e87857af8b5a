import { Injectable } from '@nestjs/common';
import { askEvents, type EventData, type askStarted } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

type Data = { askId: string; costUsd?: string; at?: string };

/** The asks list: one row per ask with its status and cost, written from each ask event alone. */
@Injectable()
export class AsksProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'asks', types: askEvents.map((e) => e.type), tables: ['asks'] });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    const d = event.data as Data;
    switch (event.type) {
      case 'ask.started': {
        const s = event.data as EventData<typeof askStarted>;
        await tx.query(
          `INSERT INTO ${this.q}.asks (ask_id, team, status, persona, model, started_at) VALUES ($1, $2, 'running', $3, $4, $5) ON CONFLICT (ask_id) DO NOTHING`,
          [s.askId, s.team, s.persona, s.routing.model, s.startedAt],
        );
        return;
      }
      case 'ask.completed':
      case 'ask.failed':
        await tx.query(`UPDATE ${this.q}.asks SET status = $2, cost_usd = $3, ended_at = $4 WHERE ask_id = $1`, [
          d.askId,
          event.type === 'ask.completed' ? 'completed' : 'failed',
          d.costUsd ?? null,
          d.at,
        ]);
        return;
    }
  }
}
