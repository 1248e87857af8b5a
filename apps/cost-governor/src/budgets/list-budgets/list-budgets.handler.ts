import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listBudgets } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { BudgetRow } from '../budget.entity';

/** `list-budgets`: budgets from the projection for dashboards (decisions never read it). */
@Controller()
export class ListBudgetsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listBudgets)
  async handle({ kind, team, status, limit }: z.output<typeof listBudgets.request>) {
    const rows = await this.reads.em().find(
      BudgetRow,
      { ...(kind ? { scopeKind: kind } : {}), ...(team ? { scope: { team } } : {}), ...(status ? { status } : {}) },
      { orderBy: { budgetId: 'asc' }, limit },
    );
    return {
      budgets: rows.map(({ budgetId, scope, status, period, periodStart, limitMicros, spentMicros, reservedMicros, warned, approvalId }) => ({
        budgetId,
        scope,
        status,
        period,
        periodStart: periodStart.toISOString(),
        ...(limitMicros == null ? {} : { limitMicros }),
        spentMicros,
        reservedMicros,
        ...(limitMicros == null || limitMicros === '0' ? {} : { utilisation: Number((BigInt(spentMicros) * 10_000n) / BigInt(limitMicros)) / 100 }),
        warned,
        ...(approvalId ? { approvalId } : {}),
      })),
    };
  }
}
