import { Injectable } from '@nestjs/common';
import { approvalEvents } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { ApprovalEvent } from './approval.decider';

/** The approvals queue read model: pending approvals by team and kind, and every decision. */
@Injectable()
export class ApprovalsProjection extends Projection<RecordedEvent & ApprovalEvent> {
  constructor(store: EventStore) {
    super(store, { name: 'approvals', types: approvalEvents.map((e) => e.type), tables: ['approvals'] });
  }

  protected async apply(event: RecordedEvent & ApprovalEvent, tx: PoolClient): Promise<void> {
    switch (event.type) {
      case 'approval.requested': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${this.q}.approvals (approval_id, team, kind, requester, summary, payload, default_answer, status, requested_at, expires_at, seq)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10) ON CONFLICT (approval_id) DO NOTHING`,
          [d.approvalId, d.team, d.kind, d.requester, d.summary, JSON.stringify(d.payload), d.defaultAnswer, d.requestedAt, d.expiresAt, event.globalPosition.toString()],
        );
        break;
      }
      case 'approval.decided': {
        const d = event.data;
        await tx.query(
          `UPDATE ${this.q}.approvals SET status = $2, decision = $3, reason = $4, decided_by = $5, decision_source = $6, decided_at = $7 WHERE approval_id = $1`,
          [d.approvalId, d.decision === 'approve' ? 'approved' : 'denied', d.decision, d.reason ?? null, d.decidedBy, d.source, d.decidedAt],
        );
        break;
      }
      default:
        break;
    }
  }
}
