import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, getBudget, HeadspaceError } from '@headspace/contracts';
import type { z } from 'zod';
import { BudgetRepository } from '../budget.repository';
import { toBudgetView } from '../budget-view';

/** `get-budget`: a budget's current state, read from its stream (never stale). */
@Controller()
export class GetBudgetHandler {
  constructor(
    private readonly budgets: BudgetRepository,
  ) {}

  @MessagePattern(getBudget)
  async handle(request: z.output<typeof getBudget.request>) {
    const state = await this.budgets.load(request.budgetId);
    if (state.status === 'none') throw new HeadspaceError(ErrorCodes.budgetNotFound, `No budget "${request.budgetId}"`, { field: 'budgetId' });
    return toBudgetView(state);
  }
}
