import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { approvalDecided, ErrorCodes, HeadspaceError, usdAmountSchema, type EventData } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import type { ConsumedEvent, EventContext } from '@headspace/messaging';
import { SERVICE_SCHEMA } from '@headspace/platform';
import { BudgetCommands } from '../budget-commands.service';

/** `addUsd=1.50`, `addUsd: $1.50`, `+$1.50` in the approver's reason choose the top-up. */
export function addUsdFromReason(reason: string | undefined): bigint | undefined {
  const match = /(?:addUsd\s*[=:]\s*\$?|\+\$)(\d+(?:\.\d{1,6})?)/i.exec(reason ?? '');
  if (!match) return undefined;
  const parsed = usdAmountSchema.safeParse(match[1]);
  return parsed.success ? BigInt(parsed.data) : undefined;
}

/**
 * The team-manager's `approval.decided` for budget overruns, through a durable JetStream consumer
 * (inbox idempotency): approve raises the limit (by the reason's `addUsd`, else the proposed top-up)
 * and resumes the budget, deny stops it. The approval is matched to its budget through the
 * `budget.approval-requested` event in our own log; when that link is not committed yet the message
 * is retried with backoff.
 */
@Controller()
export class ApprovalDecidedConsumer {
  static readonly durable = 'cost-governor-budget-approvals';
  private readonly q: string;

  constructor(
    @Inject(SERVICE_SCHEMA) schema: string,
    private readonly commands: BudgetCommands,
  ) {
    this.q = quoteIdent(schema);
  }

  @EventPattern(approvalDecided, { durable: ApprovalDecidedConsumer.durable, backoffMs: [250, 1_000, 5_000, 15_000] })
  async apply(@Payload() event: ConsumedEvent<EventData<typeof approvalDecided>>, @Ctx() { tx }: EventContext): Promise<void> {
    const d = event.data;
    if (d.kind !== 'budget-overrun') return;
    const { rows } = await tx.query<{ budget_id: string }>(
      `SELECT data ->> 'budgetId' AS budget_id FROM ${this.q}.events WHERE type = 'budget.approval-requested' AND data ->> 'approvalId' = $1 LIMIT 1`,
      [d.approvalId],
    );
    if (!rows.length) throw new Error(`approval ${d.approvalId} is not linked to a budget (yet)`);
    try {
      await this.commands.run(
        rows[0].budget_id,
        {
          type: 'resolve-pause',
          decision: d.decision,
          addMicros: d.decision === 'approve' ? addUsdFromReason(d.reason) : undefined,
          resolvedBy: d.decidedBy,
          approvalId: d.approvalId,
          reason: d.reason,
          now: new Date().toISOString(),
        },
        `approval-decided:${event.eventId}`,
        { causationId: event.eventId },
      );
    } catch (error) {
      // Resolved directly (resolve-budget-pause) before the approval was answered: nothing left to do.
      if (error instanceof HeadspaceError && error.code === ErrorCodes.budgetNotPaused) return;
      throw error;
    }
  }
}
