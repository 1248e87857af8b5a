import { Injectable } from '@nestjs/common';
import { budgetStreamId, type EventMetadata } from '@headspace/contracts';
import { EventStore, foldEvents } from '@headspace/event-store';
import { budgetDecider, type BudgetCommand, type BudgetEvent, type BudgetState } from './budget.decider';
import { BudgetGroupCommit } from './budget-group-commit';
import { firstEventIds } from './budget-tick';

/**
 * Runs one command on one budget (prior result first: a retried command appends nothing). Budgets do
 * not go through the one command handler (`handleCommand`): may-spend and record-usage are decided
 * many to a statement against this instance's cached budget states (BudgetGroupCommit), and a budget's
 * other commands (set-budget, pauses, expiry) must join those ticks — a second writer reading and
 * appending on its own would race every tick for the same streams and invalidate the cache it rests
 * on. The handler's rules hold here too: exact versions, bounded retry of lost races, a retried
 * command id answered as its first attempt (`asLeftBy`).
 */
@Injectable()
export class BudgetCommands {
  constructor(
    private readonly groupCommit: BudgetGroupCommit,
    private readonly store: EventStore,
  ) {}

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

  /**
   * The budget as this command's first attempt left it: what a retried command answers, not the
   * budget as later commands changed it. Reads the stream, so only for the rare retry of a command
   * whose answer shows the budget.
   */
  async asLeftBy(budgetId: string, commandId: string): Promise<{ state: BudgetState; streamVersion: bigint }> {
    const history = await this.store.readStream(budgetStreamId(budgetId));
    const through = history.findLastIndex((event) => event.metadata.commandId === commandId);
    const events = history.slice(0, through + 1) as unknown as BudgetEvent[];
    return { state: foldEvents(budgetDecider, events), streamVersion: through < 0 ? 0n : history[through].streamVersion };
  }
}
