import { Injectable } from '@nestjs/common';
import { approvalEvents, type ApprovalView } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { ApprovalEvent } from './approval.decider';

export interface ApprovalRow {
  approval_id: string;
  team: string;
  kind: ApprovalView['kind'];
  requester: string;
  summary: string;
  payload: Record<string, unknown>;
  default_answer: ApprovalView['defaultAnswer'];
  status: ApprovalView['status'];
  decision: ApprovalView['decision'] | null;
  reason: string | null;
  decided_by: string | null;
  decision_source: ApprovalView['decisionSource'] | null;
  requested_at: Date;
  expires_at: Date;
  decided_at: Date | null;
}

export function toApprovalView(row: ApprovalRow): ApprovalView {
  return {
    approvalId: row.approval_id,
    team: row.team,
    kind: row.kind,
    requester: row.requester,
    summary: row.summary,
    payload: row.payload,
    defaultAnswer: row.default_answer,
    status: row.status,
    ...(row.decision ? { decision: row.decision } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.decided_by ? { decidedBy: row.decided_by } : {}),
    ...(row.decision_source ? { decisionSource: row.decision_source } : {}),
    requestedAt: row.requested_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    ...(row.decided_at ? { decidedAt: row.decided_at.toISOString() } : {}),
  };
}

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
