import { Inject, Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listBudgets, type BudgetScope } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { z } from 'zod';

interface BudgetRow {
  budget_id: string;
  scope: BudgetScope;
  status: 'active' | 'paused' | 'stopped';
  period: 'none' | 'day' | 'week' | 'month';
  period_start: Date;
  limit_micros: string | null;
  spent_micros: string;
  reserved_micros: string;
  warned: boolean;
  approval_id: string | null;
}

/** `list-budgets`: budgets from the projection for dashboards (decisions never read it). */
@Controller()
export class ListBudgetsHandler {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  @MessagePattern(listBudgets)
  async handle(request: z.output<typeof listBudgets.request>) {
    const { rows } = await this.pool.query<BudgetRow>(
      `SELECT b.budget_id, b.scope, b.status, b.period, b.period_start, b.limit_micros::text, b.spent_micros::text, b.warned, b.approval_id,
              coalesce((SELECT sum(r.amount_micros) FROM ${this.q}.reservations r WHERE r.budget_id = b.budget_id), 0)::text AS reserved_micros
         FROM ${this.q}.budgets b
        WHERE ($1::text IS NULL OR b.scope_kind = $1) AND ($2::text IS NULL OR b.scope ->> 'team' = $2) AND ($3::text IS NULL OR b.status = $3)
        ORDER BY b.budget_id LIMIT $4`,
      [request.kind ?? null, request.team ?? null, request.status ?? null, request.limit],
    );
    return {
      budgets: rows.map((r) => ({
        budgetId: r.budget_id,
        scope: r.scope,
        status: r.status,
        period: r.period,
        periodStart: r.period_start.toISOString(),
        ...(r.limit_micros === null ? {} : { limitMicros: r.limit_micros }),
        spentMicros: r.spent_micros,
        reservedMicros: r.reserved_micros,
        ...(r.limit_micros === null || r.limit_micros === '0' ? {} : { utilisation: Number((BigInt(r.spent_micros) * 10_000n) / BigInt(r.limit_micros)) / 100 }),
        warned: r.warned,
        ...(r.approval_id ? { approvalId: r.approval_id } : {}),
      })),
    };
  }
}
