import { Injectable } from '@nestjs/common';
import { batchEvents, type batchCreated, type batchEnded, type batchFailed, type batchSubmitted, type EventData } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

/** The batches list: one row per batch with its status, provider id and cost, written from each batch event alone. */
@Injectable()
export class BatchesProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'batches', types: batchEvents.map((e) => e.type).filter((t) => t !== 'batch.item-settled' && t !== 'batch.create-attempted'), tables: ['batches'] });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    switch (event.type) {
      case 'batch.submitted': {
        const s = event.data as EventData<typeof batchSubmitted>;
        await tx.query(
          `INSERT INTO ${this.q}.batches (batch_id, team, status, simulated, items, submitted_at) VALUES ($1, $2, 'submitting', $3, $4, $5) ON CONFLICT (batch_id) DO NOTHING`,
          [s.batchId, s.team, s.simulated, s.items.length, s.submittedAt],
        );
        return;
      }
      case 'batch.created': {
        const c = event.data as EventData<typeof batchCreated>;
        await tx.query(`UPDATE ${this.q}.batches SET status = 'in_progress', provider_batch_id = $2, simulated = simulated OR $3 WHERE batch_id = $1`, [
          c.batchId,
          c.providerBatchId,
          c.providerBatchId.startsWith('msgbatch_sim_'),
        ]);
        return;
      }
      case 'batch.ended': {
        const e = event.data as EventData<typeof batchEnded>;
        await tx.query(`UPDATE ${this.q}.batches SET status = 'ended', cost_usd = $2, ended_at = $3 WHERE batch_id = $1`, [e.batchId, e.costUsd, e.at]);
        return;
      }
      case 'batch.failed': {
        const f = event.data as EventData<typeof batchFailed>;
        await tx.query(`UPDATE ${this.q}.batches SET status = 'failed', ended_at = $2 WHERE batch_id = $1`, [f.batchId, f.at]);
        return;
      }
    }
  }
}
