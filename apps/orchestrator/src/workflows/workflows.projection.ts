import { Injectable } from '@nestjs/common';
import { workflowEnded, workflowStarted, type EventData } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

/** The workflows list: one row per workflow with its status, written from its start and end alone. */
@Injectable()
export class WorkflowsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'workflows', types: [workflowStarted.type, workflowEnded.type], tables: ['workflows'] });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    if (event.type === workflowStarted.type) {
      const s = event.data as EventData<typeof workflowStarted>;
      await tx.query(
        `INSERT INTO ${this.q}.workflows (workflow_id, team, name, mode, status, simulated, steps, started_at) VALUES ($1, $2, $3, $4, 'running', $5, $6, $7) ON CONFLICT (workflow_id) DO NOTHING`,
        [s.workflowId, s.team, s.name, s.mode, s.simulated, s.steps.length, s.startedAt],
      );
    } else if (event.type === workflowEnded.type) {
      const e = event.data as EventData<typeof workflowEnded>;
      await tx.query(`UPDATE ${this.q}.workflows SET status = $2, ended_at = $3 WHERE workflow_id = $1`, [e.workflowId, e.status, e.at]);
    }
  }
}
