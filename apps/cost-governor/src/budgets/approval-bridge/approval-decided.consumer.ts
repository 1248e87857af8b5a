import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { approvalDecided, ErrorCodes, EventRegistry, HeadspaceError, usdAmountSchema, type EventData } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { createConsumer, ensureStream, eventStreamFor, type ConsumedEvent, type EventConsumer } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool, PoolClient } from 'pg';
import { BudgetCommands } from '../budget-commands.service';

const registry = new EventRegistry([approvalDecided]);

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
@Injectable()
export class ApprovalDecidedConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  static readonly durable = 'cost-governor-budget-approvals';
  private readonly logger = new Logger('ApprovalDecided');
  private readonly q: string;
  private consumer?: EventConsumer;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
    private readonly commands: BudgetCommands,
  ) {
    this.q = quoteIdent(schema);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Declared here too (idempotently), so the cost-governor can start before the team-manager.
    const stream = eventStreamFor('team-manager');
    await ensureStream(await jetstreamManager(this.nc), stream);
    this.consumer = await createConsumer({
      js: jetstream(this.nc),
      pool: this.pool,
      schema: this.schema,
      stream: stream.name,
      durable: ApprovalDecidedConsumer.durable,
      filterSubjects: approvalDecided.subject,
      backoffMs: [250, 1_000, 5_000, 15_000],
      decode: (event) => ({ ...event, data: registry.parse(event.type, event.data) }),
      handle: (event, tx) => this.apply(event as ConsumedEvent<EventData<typeof approvalDecided>>, tx),
      onError: (error) => this.logger.warn(`approval decided: ${(error as Error).message}`),
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  private async apply(event: ConsumedEvent<EventData<typeof approvalDecided>>, tx: PoolClient): Promise<void> {
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
