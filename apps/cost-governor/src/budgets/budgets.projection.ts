import { Injectable } from '@nestjs/common';
import { budgetEvents } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { BudgetEvent } from './budget.decider';

/** Budgets for listing and dashboards, and open reservations for the expiry sweeper. Decisions never read it. */
@Injectable()
export class BudgetsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'budgets', types: budgetEvents.map((e) => e.type), tables: ['budgets', 'reservations'] });
  }

  /**
   * Holds and spend change with nearly every event: runs of reserved / settled / released / expired
   * events are written in three statements (holds added, holds removed, spend per budget) instead
   * of one or two each; any other event flushes the run and is applied on its own, in log order.
   */
  protected override async handle(events: RecordedEvent[], tx: PoolClient): Promise<void> {
    const run = new HoldsRun();
    for (const recorded of events) {
      const event = recorded as RecordedEvent & BudgetEvent;
      if (!run.add(event)) {
        await this.flush(run, tx);
        if (!run.add(event)) await this.apply(event, tx);
      }
    }
    await this.flush(run, tx);
  }

  private async flush(run: HoldsRun, tx: PoolClient): Promise<void> {
    const q = this.q;
    if (run.added.size > 0) {
      await tx.query(
        `INSERT INTO ${q}.reservations (budget_id, reservation_id, amount_micros, expires_at)
         SELECT budget_id, reservation_id, amount_micros, expires_at FROM jsonb_populate_recordset(NULL::${q}.reservations, $1::jsonb) ON CONFLICT DO NOTHING`,
        [JSON.stringify([...run.added.values()])],
      );
    }
    if (run.removed.size > 0) {
      await tx.query(
        `DELETE FROM ${q}.reservations r USING jsonb_to_recordset($1::jsonb) AS d (budget_id text, reservation_id text)
          WHERE r.budget_id = d.budget_id AND r.reservation_id = d.reservation_id`,
        [JSON.stringify([...run.removed.values()])],
      );
    }
    if (run.spent.size > 0) {
      await tx.query(
        `UPDATE ${q}.budgets b SET spent_micros = b.spent_micros + d.cost, updated_at = d.at
           FROM jsonb_to_recordset($1::jsonb) AS d (budget_id text, cost bigint, at timestamptz) WHERE b.budget_id = d.budget_id`,
        [JSON.stringify([...run.spent].map(([budgetId, { cost, at }]) => ({ budget_id: budgetId, cost: cost.toString(), at })))],
      );
    }
    run.clear();
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

const holdKey = (budgetId: string, reservationId: string) => `${budgetId}\u0000${reservationId}`;

/** The net effect of a run of hold and spend events: written added-then-removed, which equals their log order as long as no hold comes back after its removal (add() refuses that). */
class HoldsRun {
  readonly added = new Map<string, { budget_id: string; reservation_id: string; amount_micros: string; expires_at: string }>();
  readonly removed = new Map<string, { budget_id: string; reservation_id: string }>();
  /** Spend added per budget and the time of its last settle (the row's updated_at). */
  readonly spent = new Map<string, { cost: bigint; at: string }>();

  /** Takes the event into the run, or says it does not fit (another type, or a hold re-added after its removal). */
  add(event: BudgetEvent): boolean {
    switch (event.type) {
      case 'budget.reserved': {
        const { budgetId, reservationId } = event.data;
        const key = holdKey(budgetId, reservationId);
        if (this.removed.has(key)) return false;
        this.added.set(key, { budget_id: budgetId, reservation_id: reservationId, amount_micros: event.data.amountMicros, expires_at: event.data.expiresAt });
        return true;
      }
      case 'budget.settled': {
        const { budgetId, reservationId, costMicros, at } = event.data;
        if (reservationId) this.removed.set(holdKey(budgetId, reservationId), { budget_id: budgetId, reservation_id: reservationId });
        this.spent.set(budgetId, { cost: (this.spent.get(budgetId)?.cost ?? 0n) + BigInt(costMicros), at });
        return true;
      }
      case 'budget.reservation-expired':
      case 'budget.reservation-released':
        this.removed.set(holdKey(event.data.budgetId, event.data.reservationId), { budget_id: event.data.budgetId, reservation_id: event.data.reservationId });
        return true;
      default:
        return false;
    }
  }

  clear(): void {
    this.added.clear();
    this.removed.clear();
    this.spent.clear();
  }
}
