import { Injectable } from '@nestjs/common';
import type { EventMetadata } from '@headspace/contracts';
import type { BudgetCommand, BudgetState } from './budget.decider';
import { BudgetGroupCommit } from './budget-group-commit';
import { firstEventIds } from './budget-tick';

/** Runs one command on one budget (prior result first: a retried command appends nothing). */
@Injectable()
export class BudgetCommands {
  constructor(private readonly groupCommit: BudgetGroupCommit) {}

  run(budgetId: string, command: BudgetCommand, commandId: string, metadata: EventMetadata): Promise<{ state: BudgetState; streamVersion: bigint; replayed: boolean }> {
    return this.groupCommit.submit({
      budgetIds: [budgetId],
      probes: () => firstEventIds(commandId, [budgetId]),
      work: (tick) => {
        if (tick.alreadyApplied(commandId, [budgetId])) return { state: tick.state(budgetId), streamVersion: tick.version(budgetId), replayed: true };
        const { state } = tick.apply(budgetId, command, commandId, metadata);
        return { state, streamVersion: tick.version(budgetId), replayed: false };
      },
    });
  }
}
