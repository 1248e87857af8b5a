import { budgetStreamId, type EventMetadata } from '@headspace/contracts';
import { deterministicEventId, type NewEvent, type StreamAppend } from '@headspace/event-store';
import type { PriceBook } from '../prices/price-book';
import { budgetDecider, type ActiveBudget, type BudgetCommand, type BudgetEvent, type BudgetState } from './budget.decider';

/** A budget's state folded up to a stream version (0n: no stream). */
export interface Folded {
  state: BudgetState;
  version: bigint;
}

export type TickOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

const memo = new Map<string, string>();

/** The id of the first event a command appends to a stream (a SHA-1 each: remembered, since a command asks for it several times). */
export function firstEventId(commandId: string, streamId: string): string {
  const key = `${commandId}\u0000${streamId}`;
  let id = memo.get(key);
  if (id === undefined) {
    if (memo.size >= 10_000) memo.clear();
    id = deterministicEventId(commandId, streamId, 0);
    memo.set(key, id);
  }
  return id;
}

/** The ids of the first event a command appends to each of these budgets: present in the log means it already ran. */
export const firstEventIds = (commandId: string, budgetIds: string[]): string[] => budgetIds.map((id) => firstEventId(commandId, budgetStreamId(id)));

/**
 * One group-committed tick, in memory and pure: the commands of the tick run in arrival order
 * against the budgets as the earlier ones left them, and their events pile up as appends at exact
 * versions (several commands on one budget chain their versions). A command that throws leaves no
 * trace: its state changes are undone and its appends dropped, the others are unaffected.
 */
export class BudgetTick {
  private readonly pending: StreamAppend[] = [];
  private readonly written = new Set<string>();
  private readonly touched = new Set<string>();
  private undo?: Map<string, Folded>;
  private askedUnprobed = false;

  /**
   * @param folded every budget the tick's commands may touch (state `none`, version 0n when missing)
   * @param recorded the probed first-event ids (firstEventId) that already are in the log; undefined
   *   when the tick was not probed (then only appends earlier in the tick are known)
   */
  constructor(
    private readonly folded: Map<string, Folded>,
    private readonly recorded: ReadonlySet<string> | undefined,
    readonly prices: PriceBook,
  ) {}

  /** Whether the last command asked if it ran before, in a tick that was not probed: its answer may be wrong if it wrote nothing. */
  get lastAskedUnprobed(): boolean {
    return this.askedUnprobed;
  }

  /** Runs one command; whatever it throws fails it alone. */
  run<R>(work: (tick: BudgetTick) => R): TickOutcome<R> {
    this.undo = new Map();
    this.askedUnprobed = false;
    const mark = this.pending.length;
    try {
      return { ok: true, value: work(this) };
    } catch (error) {
      for (const [id, before] of this.undo) this.folded.set(id, before);
      for (const entry of this.pending.splice(mark)) this.written.delete(`${entry.commandId}\u0000${entry.streamId}`);
      return { ok: false, error };
    } finally {
      this.undo = undefined;
    }
  }

  /** The existing budgets among `budgetIds`, in id order (the order of every reply). */
  budgets(budgetIds: string[]): Map<string, ActiveBudget> {
    const result = new Map<string, ActiveBudget>();
    for (const id of [...new Set(budgetIds)].sort()) {
      const state = this.entry(id).state;
      if (state.status !== 'none') result.set(id, state);
    }
    return result;
  }

  state(budgetId: string): BudgetState {
    return this.entry(budgetId).state;
  }

  version(budgetId: string): bigint {
    return this.entry(budgetId).version;
  }

  /** True when this command already appended to any of these budgets: before this tick (probed) or earlier in it. */
  alreadyApplied(commandId: string, budgetIds: string[]): boolean {
    return budgetIds.some((id) => this.appended(commandId, budgetStreamId(id)));
  }

  /** Whether this command appended to this stream before this tick (its first event was probed) or earlier in it. */
  appended(commandId: string, streamId: string): boolean {
    if (this.written.has(`${commandId}\u0000${streamId}`)) return true;
    if (!this.recorded) this.askedUnprobed = true;
    return this.recorded?.has(firstEventId(commandId, streamId)) ?? false;
  }

  /** Decides a command on a budget and queues its events at the budget's exact version. */
  apply(budgetId: string, command: BudgetCommand, commandId: string, metadata: EventMetadata): { events: BudgetEvent[]; state: BudgetState } {
    const before = this.entry(budgetId);
    const events = budgetDecider.decide(command, before.state);
    if (events.length === 0) return { events, state: before.state };
    this.queue({ streamId: budgetStreamId(budgetId), events, expected: before.version === 0n ? 'no-stream' : before.version, commandId, metadata });
    if (this.undo && !this.undo.has(budgetId)) this.undo.set(budgetId, before);
    const after = { state: events.reduce(budgetDecider.evolve, before.state), version: before.version + BigInt(events.length) };
    this.folded.set(budgetId, after);
    this.touched.add(budgetId);
    return { events, state: after.state };
  }

  /** Queues the events of a stream this command creates (e.g. its usage record). */
  create(streamId: string, events: NewEvent[], commandId: string, metadata: EventMetadata): void {
    this.queue({ streamId, events, expected: 'no-stream', commandId, metadata });
  }

  /** Everything the tick's commands append, in order. */
  get appends(): StreamAppend[] {
    return this.pending;
  }

  /** The budgets this tick changed, at the versions its appends leave them. */
  changed(): Map<string, Folded> {
    return new Map([...this.touched].map((id) => [id, this.folded.get(id)!]));
  }

  private queue(entry: StreamAppend & { commandId: string }): void {
    this.pending.push(entry);
    this.written.add(`${entry.commandId}\u0000${entry.streamId}`);
  }

  private entry(budgetId: string): Folded {
    const folded = this.folded.get(budgetId);
    if (!folded) throw new Error(`budget ${budgetId} was not loaded for this tick`);
    return folded;
  }
}
