import { Controller, Inject, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { approvalDecided, type EventData } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import type { ConsumedEvent, EventContext } from '@headspace/messaging';
import { SERVICE_SCHEMA } from '@headspace/platform';
import type { PoolClient } from 'pg';
import { RemediationTable } from '../remediation-table';

/**
 * The team-manager's `approval.decided` of fix approvals, through a durable consumer: approve
 * schedules the fix run; deny (an answer or the timeout's default) leaves the group at
 * FIX_PROPOSED, recorded on the remediation row and in the log. The group is found by the approval
 * id on its row, or on its `group.fix-proposed` event while the worker has not finished that step;
 * when neither is committed yet the message is retried with backoff.
 */
@Controller()
export class FixApprovalConsumer {
  static readonly durable = 'ops-leon-fix-approvals';
  private readonly logger = new Logger('FixApprovals');
  private readonly q: string;

  constructor(
    private readonly table: RemediationTable,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  @EventPattern(approvalDecided, { durable: FixApprovalConsumer.durable, backoffMs: [250, 1_000, 5_000, 15_000, 60_000], maxDeliver: 10 })
  async apply(@Payload() event: ConsumedEvent<EventData<typeof approvalDecided>>, @Ctx() { tx }: EventContext): Promise<void> {
    const d = event.data;
    if (d.kind !== 'fix-approval') return;
    const groupId = await this.groupOf(d.approvalId, tx);
    if (!groupId) throw new Error(`fix approval ${d.approvalId} is not linked to a group (yet)`);
    const row = await this.table.byGroup(groupId, tx);
    if (!row) throw new Error(`group ${groupId} has no remediation (yet)`);
    if (d.decision === 'approve') {
      await this.table.schedule(tx, {
        groupId,
        project: row.project,
        step: 'start-fix',
        stepId: event.eventId,
        input: { approach: row.stepInput.approach ?? row.triage.approach ?? '' },
        columns: { approval_id: d.approvalId, approval_decision: 'approve', run_id: null },
      });
      return;
    }
    await this.table.set(groupId, { approval_id: d.approvalId, approval_decision: 'deny' }, tx);
    this.logger.log(`fix of group ${groupId} denied by ${d.decidedBy} (${d.source})${d.reason ? `: ${d.reason}` : ''}; it stays FIX_PROPOSED`);
  }

  private async groupOf(approvalId: string, tx: PoolClient): Promise<string | undefined> {
    const linked = await this.table.by('approval_id', approvalId, tx);
    if (linked) return linked.groupId;
    const { rows } = await tx.query<{ group_id: string }>(
      `SELECT data ->> 'groupId' AS group_id FROM ${this.q}.events WHERE type = 'group.fix-proposed' AND data ->> 'approvalId' = $1 LIMIT 1`,
      [approvalId],
    );
    return rows[0]?.group_id;
  }
}
