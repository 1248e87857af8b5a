import { Inject, Injectable } from '@nestjs/common';
import { budgetStreamId, ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { ConcurrencyError, EventStore } from '@headspace/event-store';
import { PG_POOL } from '@headspace/platform';
import { meter } from '@headspace/telemetry';
import type { Pool, PoolClient } from 'pg';
import type { PriceBook } from '../prices/price-book';
import { PRICES_STREAM, PriceCatalog } from '../prices/price-catalog.service';
import { BudgetRepository } from './budget.repository';
import { BudgetTick, type Folded, type TickOutcome } from './budget-tick';

/** The most commands one tick takes; the rest wait for the next. */
const MAX_TICK = 256;
const MAX_ATTEMPTS = 6;
const CONTENDED_MS = 1_000;

const ticks = meter.createCounter('headspace.budget.group_commit.ticks', {
  description: 'Group-committed ticks by how their budgets were had: cached (no read), read (read first), locked (after a lost race)',
});
const tickCommands = meter.createHistogram('headspace.budget.group_commit.commands', { description: 'Commands decided and appended together in one tick' });

/** One command on budgets, as the group commit runs it. */
export interface TickCommand<R> {
  /** The budgets it reads or writes (missing ones too: set-budget creates its own). */
  budgetIds: string[];
  /**
   * The first-event ids (firstEventId) whose presence in the log means it already ran, for a
   * command that can be retried: BudgetTick.appended / alreadyApplied answer from them. Asked only
   * when a tick reads (each id is a SHA-1).
   */
  probes?: () => string[];
  /** Decides it against the budgets as the tick's earlier commands left them: pure and synchronous; a throw fails this command only. */
  work(tick: BudgetTick): R;
}

interface Queued {
  command: TickCommand<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Lost races: a version moved under us (another instance), a retried command's event id appeared, a deadlock. */
const lostRace = (error: unknown) => error instanceof ConcurrencyError || ['23505', '40P01', '40001'].includes((error as { code?: string })?.code ?? '');

/**
 * Every command on budgets (may-spend, record-usage, release, set-budget, pauses, expiry) is
 * group-committed, one tick at a time per instance: a tick takes everything queued since the last
 * one began, decides each command in arrival order against the budget states the earlier ones left
 * (BudgetTick: in memory, no I/O, no lock held) and appends all their events with ONE statement
 * (EventStore.appendMany): every written stream compared-and-set at the version its state was
 * folded at, every budget read but not written (and the price table) checked at its version — one
 * round trip and one WAL flush for the whole tick, however many commands and budgets it holds.
 *
 * The states come from this instance's cache (BudgetRepository), so the steady state costs that
 * one statement and nothing else. A tick reads first (versions of its budgets and the price table
 * plus the probes of retried commands, one statement; budgets that moved are topped up from the
 * log) when a budget was never seen, when another instance raced this one in the last second, or
 * when a command that asked whether it ran before wrote nothing (only its probe can tell its answer).
 *
 * Nothing is locked before the append, so a stale cache or another instance appending in between
 * fails the append as a whole (ConcurrencyError, or the unique event id of a retried command): the
 * tick is then decided again under row locks taken in id order (read, decide and append in one
 * short transaction), which cannot lose the same race twice. Each budget's decisions therefore
 * always see every earlier event of its stream — thresholds fire exactly once, and concurrent
 * callers can overspend only by what their in-flight calls use beyond their reservation. An error
 * no retry cures (a bad event, a database error) fails the tick's commands one by one, each in a
 * tick of its own, so only the culprit fails.
 */
@Injectable()
export class BudgetGroupCommit {
  private readonly queue: Queued[] = [];
  private writing = false;
  /** Until then ticks read their budgets first: another instance won a race on one of them lately. */
  private contendedUntil = 0;

  constructor(
    private readonly budgets: BudgetRepository,
    private readonly store: EventStore,
    private readonly catalog: PriceCatalog,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  submit<R>(command: TickCommand<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ command, resolve: resolve as (value: unknown) => void, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0, MAX_TICK);
    void this.write(batch).finally(() => {
      this.writing = false;
      this.kick();
    });
  }

  private async write(batch: Queued[]): Promise<void> {
    let outcomes: TickOutcome<unknown>[];
    try {
      outcomes = await this.commit(batch.map((item) => item.command));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const item of batch) await this.write([item]);
      return;
    }
    tickCommands.record(batch.length);
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i].resolve(outcome.value) : batch[i].reject(outcome.error)));
  }

  private async commit(commands: TickCommand<unknown>[]): Promise<TickOutcome<unknown>[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return attempt === 1 ? await this.unlocked(commands) : await this.locked(commands);
      } catch (error) {
        if (!lostRace(error)) throw error;
        this.contendedUntil = Date.now() + CONTENDED_MS;
        if (attempt === MAX_ATTEMPTS) {
          throw new HeadspaceError(ErrorCodes.retriesExhausted, `Gave up after ${MAX_ATTEMPTS} attempts: ${(error as Error).message}`, { cause: error });
        }
      }
    }
  }

  private async unlocked(commands: TickCommand<unknown>[]): Promise<TickOutcome<unknown>[]> {
    const cached = this.fromCache(commands);
    let done = cached && (await this.decideAndAppend(commands, cached));
    ticks.add(1, { mode: done ? 'cached' : 'read' });
    done ??= (await this.decideAndAppend(commands, await this.read(commands)))!;
    this.remember(done.changed);
    return done.outcomes;
  }

  private async locked(commands: TickCommand<unknown>[]): Promise<TickOutcome<unknown>[]> {
    ticks.add(1, { mode: 'locked' });
    const done = await this.store.transaction(async (client) => {
      await this.budgets.lock(budgetIdsOf(commands), client);
      return (await this.decideAndAppend(commands, await this.read(commands, client), client))!;
    });
    this.remember(done.changed);
    return done.outcomes;
  }

  /** The tick's budgets as this instance last saw them, when it has them all and no other instance raced it lately. */
  private fromCache(commands: TickCommand<unknown>[]): TickInput | undefined {
    if (Date.now() < this.contendedUntil) return undefined;
    const folded = this.budgets.cached(budgetIdsOf(commands));
    return folded && { folded, prices: this.catalog.current(), pricesVersion: this.catalog.version };
  }

  /** The tick's budgets and the probes of its commands, read now. */
  private async read(commands: TickCommand<unknown>[], client?: PoolClient): Promise<TickInput> {
    const db = client ?? this.pool;
    const budgetIds = budgetIdsOf(commands);
    const { versions, recorded } = await this.budgets.peek([...budgetIds.map(budgetStreamId), PRICES_STREAM], [...new Set(commands.flatMap((c) => c.probes?.() ?? []))], db);
    const pricesVersion = versions.get(PRICES_STREAM) ?? 0n;
    const prices = await this.catalog.syncTo(pricesVersion);
    return { folded: await this.budgets.fold(budgetIds, versions, db), recorded, prices, pricesVersion };
  }

  /**
   * Decides the commands in order and appends what they decided, checking the versions of the
   * budgets (and price table) they read without writing. Undefined when the input was not probed
   * and a command that asked whether it ran before wrote nothing: only its probes can tell its answer.
   */
  private async decideAndAppend(commands: TickCommand<unknown>[], input: TickInput, client?: PoolClient): Promise<Decided | undefined> {
    const loaded = [...input.folded].map(([id, folded]) => ({ streamId: budgetStreamId(id), version: folded.version }));
    const tick = new BudgetTick(input.folded, input.recorded, input.prices);
    const outcomes: TickOutcome<unknown>[] = [];
    for (const command of commands) {
      const before = tick.appends.length;
      outcomes.push(tick.run(command.work));
      if (tick.lastAskedUnprobed && tick.appends.length === before) return undefined;
    }
    if (tick.appends.length > 0 || !input.recorded) {
      const written = new Set(tick.appends.map((a) => a.streamId));
      const checks = [...loaded, { streamId: PRICES_STREAM, version: input.pricesVersion }]
        .filter((c) => !written.has(c.streamId))
        .map((c) => ({ streamId: c.streamId, expected: c.version === 0n ? ('no-stream' as const) : c.version }));
      await this.store.appendMany(tick.appends, { client, checks });
    }
    return { outcomes, changed: tick.changed() };
  }

  private remember(changed: Map<string, Folded>): void {
    for (const [id, folded] of changed) this.budgets.remember(id, folded);
  }
}

interface TickInput {
  folded: Map<string, Folded>;
  /** The answers to the commands' probes when read now; none from the cache. */
  recorded?: Set<string>;
  prices: PriceBook;
  pricesVersion: bigint;
}

interface Decided {
  outcomes: TickOutcome<unknown>[];
  changed: Map<string, Folded>;
}

const budgetIdsOf = (commands: TickCommand<unknown>[]) => [...new Set(commands.flatMap((c) => c.budgetIds))].sort();
