import { Inject, Injectable } from '@nestjs/common';
import { HeadspaceError, microsToUsd, requestApproval, type budgetPaused, type EventData } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { APP_CONFIG, EventProcessor, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '../../config';
import { BudgetCommands } from '../budget-commands.service';

/** The summary the seed's journey 11 shows the operator. */
export const BUDGET_APPROVAL_SUMMARY = 'Budget 95% consumed. Continue?';

type PauseEvent = RecordedEvent<EventData<typeof budgetPaused>>;

const retryable = (code: string) => code.startsWith('MESSAGING.') || code === 'INTERNAL.UNEXPECTED' || code === 'DATABASE.UNAVAILABLE';

/**
 * `budget.paused` → a `budget-overrun` approval in the team-manager's queue (request-approval over
 * NATS), then `budget.approval-requested` on the budget so the decision can be traced back. It tails
 * the cost-governor's own log from a checkpoint; both commands carry ids derived from the pause event,
 * so a replay after a crash asks once. A refusal (e.g. a team the team-manager does not know) is logged:
 * `resolve-budget-pause` still resolves the pause directly.
 */
@Injectable()
export class BudgetApprovalProcess extends EventProcessor<PauseEvent> {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commands: BudgetCommands,
    store: EventStore,
  ) {
    // Batches count every event of the log, not only pauses (rare: once per budget and period).
    super(store, { name: 'process:budget-approvals', types: ['budget.paused'], batchSize: 500 });
  }

  protected async handle(events: PauseEvent[]): Promise<void> {
    for (const event of events) await this.ask(event);
  }

  private async ask(event: PauseEvent): Promise<void> {
    const d = event.data;
    let approvalId: string;
    try {
      const reply = await request(
        this.nc,
        requestApproval,
        {
          team: d.team,
          kind: 'budget-overrun',
          requester: 'cost-governor',
          summary: BUDGET_APPROVAL_SUMMARY,
          payload: {
            budgetId: d.budgetId,
            scope: d.scope,
            spentUsd: microsToUsd(d.spentMicros),
            limitUsd: microsToUsd(d.limitMicros),
            proposedAddUsd: microsToUsd(d.proposedAddMicros),
            hint: 'approve with reason "addUsd=<amount>" to choose the top-up',
          },
          timeoutMs: this.config.HS_BUDGET_APPROVAL_TIMEOUT_MS,
          defaultAnswer: 'deny',
        },
        { commandId: `budget-approval:${event.eventId}`, causationId: event.eventId },
      );
      approvalId = reply.approvalId;
    } catch (error) {
      if (!(error instanceof HeadspaceError) || retryable(error.code)) throw error;
      this.logger.warn(`no approval requested for ${d.budgetId}: ${error.code} ${error.message}`);
      return;
    }
    await this.commands.run(d.budgetId, { type: 'record-approval-request', approvalId, team: d.team, now: new Date().toISOString() }, `approval-link:${event.eventId}`, {
      causationId: event.eventId,
    });
  }
}
