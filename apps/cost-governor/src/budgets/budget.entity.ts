import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { BudgetScope } from '@headspace/contracts';

/** A row of the budgets read model (budgets.projection.ts; migrations/0001_cost_governor.sql). */
export const BudgetRow = defineEntity({
  name: 'BudgetRow',
  tableName: 'budgets',
  properties: {
    budgetId: p.text().primary(),
    scopeKind: p.text(),
    scope: p.json<BudgetScope>(),
    status: p.text().$type<'active' | 'paused' | 'stopped'>(),
    period: p.text().$type<'none' | 'day' | 'week' | 'month'>(),
    periodStart: p.datetime(),
    limitMicros: p.bigint('string').nullable(),
    spentMicros: p.bigint('string'),
    warned: p.boolean(),
    approvalId: p.text().nullable(),
    updatedAt: p.datetime(),
    /** Held by open reservations (the reservations table), summed in the same statement. */
    reservedMicros: p
      .text()
      .formula((cols, table) => `(SELECT coalesce(sum(r.amount_micros), 0)::text FROM ${table.schema ? `"${table.schema}".` : ''}reservations r WHERE r.budget_id = ${cols.budgetId})`),
  },
});
export type BudgetRow = InferEntity<typeof BudgetRow>;
