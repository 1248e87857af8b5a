import { Inject, Injectable } from '@nestjs/common';
import { budgetEvents } from '@headspace/contracts';
import { EventStore, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';
import { Projection } from '../shared/projection';
import type { BudgetEvent } from './budget.decider';

/** Budgets for listing and dashboards, and open reservations for the expiry sweeper. Decisions never read it. */
@Injectable()
export class BudgetsProjection extends Projection {
  private readonly q: string;

  constructor(@Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) schema: string, store: EventStore) {
    super(pool, schema, store, 'budgets', budgetEvents.map((e) => e.type));
    this.q = quoteIdent(schema);
  }

  protected async reset(tx: PoolClient): Promise<void> {
    await tx.query(`TRUNCATE ${this.q}.budgets, ${this.q}.reservations`);
  }

  protected async apply(recorded: RecordedEvent, tx: PoolClient): Promise<void> {
    const event = recorded as RecordedEvent & BudgetEvent;
    const q = this.q;
    const at = event.data.at;
    switch (event.type) {
      case 'budget.set': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.budgets (budget_id, scope_kind, scope, status, period, period_start, limit_micros, updated_at)
           VALUES ($1, $2, $3, 'active', $4, $5, $6, $7)
           ON CONFLICT (budget_id) DO UPDATE SET period = EXCLUDED.period, limit_micros = EXCLUDED.limit_micros, updated_at = EXCLUDED.updated_at,
             spent_micros = CASE WHEN ${q}.budgets.period_start = EXCLUDED.period_start THEN ${q}.budgets.spent_micros ELSE 0 END,
             period_start = EXCLUDED.period_start`,
          [d.budgetId, d.scope.kind, JSON.stringify(d.scope), d.period, d.periodStart, d.limitMicros ?? null, at],
        );
        return;
      }
      case 'budget.period-started':
        await this.update(tx, event.data.budgetId, `status = 'active', period_start = $2, spent_micros = 0, warned = false, approval_id = NULL`, [event.data.periodStart], at);
        return;
      case 'budget.reserved':
        await tx.query(
          `INSERT INTO ${q}.reservations (budget_id, reservation_id, amount_micros, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
          [event.data.budgetId, event.data.reservationId, event.data.amountMicros, event.data.expiresAt],
        );
        return;
      case 'budget.settled':
        if (event.data.reservationId) await this.release(tx, event.data.budgetId, event.data.reservationId);
        await this.update(tx, event.data.budgetId, `spent_micros = spent_micros + $2`, [event.data.costMicros], at);
        return;
      case 'budget.reservation-expired':
      case 'budget.reservation-released':
        await this.release(tx, event.data.budgetId, event.data.reservationId);
        return;
      case 'budget.threshold-crossed':
        if (event.data.level === 'warning') await this.update(tx, event.data.budgetId, `warned = true`, [], at);
        return;
      case 'budget.paused':
        await this.update(tx, event.data.budgetId, `status = 'paused', approval_id = NULL`, [], at);
        return;
      case 'budget.approval-requested':
        await this.update(tx, event.data.budgetId, `approval_id = $2`, [event.data.approvalId], at);
        return;
      case 'budget.resumed':
        await this.update(tx, event.data.budgetId, `status = 'active', limit_micros = $2`, [event.data.limitMicros], at);
        return;
      case 'budget.stopped':
        await this.update(tx, event.data.budgetId, `status = 'stopped'`, [], at);
        return;
    }
  }

  private async update(tx: PoolClient, budgetId: string, set: string, params: unknown[], at: string): Promise<void> {
    await tx.query(`UPDATE ${this.q}.budgets SET ${set}, updated_at = $${params.length + 2} WHERE budget_id = $1`, [budgetId, ...params, at]);
  }

  private async release(tx: PoolClient, budgetId: string, reservationId: string): Promise<void> {
    await tx.query(`DELETE FROM ${this.q}.reservations WHERE budget_id = $1 AND reservation_id = $2`, [budgetId, reservationId]);
  }
}
