import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, getBudget, HeadspaceError } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { BudgetRepository } from '../budget.repository';
import { toBudgetView } from '../budget-view';

/** `get-budget`: a budget's current state, read from its stream (never stale). */
@Injectable()
export class GetBudgetHandler extends ServedHandler<typeof getBudget> {
  constructor(
    private readonly budgets: BudgetRepository,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getBudget, nc);
  }

  async handle(request: z.output<typeof getBudget.request>) {
    const state = await this.budgets.load(request.budgetId);
    if (state.status === 'none') throw new HeadspaceError(ErrorCodes.budgetNotFound, `No budget "${request.budgetId}"`, { field: 'budgetId' });
    return toBudgetView(state);
  }
}
