import { Injectable } from '@nestjs/common';
import { budgetStreamId, type EventMetadata } from '@headspace/contracts';
import type { BudgetCommand, BudgetState } from './budget.decider';
import { BudgetRepository } from './budget.repository';

/** Runs one command on one budget in its own transaction (prior result first: a retried command appends nothing). */
@Injectable()
export class BudgetCommands {
  constructor(private readonly budgets: BudgetRepository) {}

  run(budgetId: string, command: BudgetCommand, commandId: string, metadata: EventMetadata): Promise<{ state: BudgetState; streamVersion: bigint; replayed: boolean }> {
    return this.budgets.transaction(async (bt) => {
      const states = await bt.lock([budgetId]);
      const version = async () => (await this.budgets.store.streamVersion(budgetStreamId(budgetId), bt.tx)) ?? 0n;
      if (await bt.alreadyApplied(commandId, [budgetId])) {
        return { state: states.get(budgetId) ?? { status: 'none' as const }, streamVersion: await version(), replayed: true };
      }
      const { state } = await bt.apply(budgetId, command, commandId, metadata);
      return { state, streamVersion: await version(), replayed: false };
    });
  }
}
