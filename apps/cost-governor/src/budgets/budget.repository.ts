import { Inject, Injectable } from '@nestjs/common';
import { budgetStreamId, type EventMetadata } from '@headspace/contracts';
import { ConcurrencyError, deterministicEventId, EventStore, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../shared/transaction';
import { budgetDecider, type ActiveBudget, type BudgetCommand, type BudgetEvent, type BudgetState } from './budget.decider';

interface Folded {
  state: BudgetState;
  version: bigint;
}

const CACHE_LIMIT = 10_000;
const MAX_BATCH = 100;

interface Queued {
  budgetIds: string[];
  /** The command id, when the work asks `alreadyApplied` about its budgets: probed for the whole batch at once. */
  commandId?: string;
  work: (budgets: BudgetTransaction) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Errors that spoil the whole transaction (SQL errors, lost races): the batch is retried or split. */
const spoilsTransaction = (error: unknown) => error instanceof ConcurrencyError || typeof (error as { code?: unknown })?.code === 'string' && /^[0-9A-Z]{5}$/.test((error as { code: string }).code);

/**
 * The budgets of one transaction, locked in a fixed order so concurrent callers queue instead of
 * deadlocking. A group-committed batch locks the union of its items' budgets first; the items' own
 * `lock` calls then read the state the earlier items of the batch left.
 */
export class BudgetTransaction {
  private readonly locked = new Map<string, Folded>();
  /** Budget ids looked up (and, when they exist, locked) in this transaction. */
  private readonly checked = new Set<string>();
  private probed?: { ids: Set<string>; found: Set<string> };

  constructor(
    readonly tx: PoolClient,
    private readonly repo: BudgetRepository,
    private readonly afterCommit: (fn: () => void) => void,
  ) {}

  /**
   * Locks the existing budgets among `budgetIds` (their stream rows, FOR UPDATE) and folds their
   * state up to the locked version. Budgets that do not exist are left out.
   */
  async lock(budgetIds: string[]): Promise<Map<string, ActiveBudget>> {
    const wanted = [...new Set(budgetIds)].sort();
    const fresh = wanted.filter((id) => !this.checked.has(id));
    if (fresh.length) {
      const { rows } = await this.tx.query<{ stream_id: string; version: string }>(
        `SELECT stream_id, version FROM ${this.repo.q}.streams WHERE stream_id = ANY($1::text[]) ORDER BY stream_id FOR UPDATE`,
        [fresh.map(budgetStreamId)],
      );
      for (const row of rows) {
        const budgetId = row.stream_id.slice('budget-'.length);
        this.locked.set(budgetId, await this.repo.foldTo(budgetId, BigInt(row.version), this.tx));
      }
      for (const id of fresh) this.checked.add(id);
    }
    const result = new Map<string, ActiveBudget>();
    for (const id of wanted) {
      const folded = this.locked.get(id);
      if (folded && folded.state.status !== 'none') result.set(id, folded.state);
    }
    return result;
  }

  /** True when this command already appended to any of these (locked) budgets: a retried request. */
  async alreadyApplied(commandId: string, budgetIds: string[]): Promise<boolean> {
    const ids = budgetIds.map((id) => deterministicEventId(commandId, budgetStreamId(id), 0));
    if (this.probed && ids.every((id) => this.probed!.ids.has(id))) return ids.some((id) => this.probed!.found.has(id));
    const { rowCount } = await this.tx.query(`SELECT 1 FROM ${this.repo.q}.events WHERE event_id = ANY($1::uuid[]) LIMIT 1`, [ids]);
    return (rowCount ?? 0) > 0;
  }

  /** Looks up, in one query for a whole batch, the first event ids its commands would append: `alreadyApplied` then answers from memory. */
  async probe(commands: Array<{ commandId: string; budgetIds: string[] }>): Promise<void> {
    const ids = new Set(commands.flatMap((c) => c.budgetIds.map((id) => deterministicEventId(c.commandId, budgetStreamId(id), 0))));
    if (ids.size === 0) return;
    const { rows } = await this.tx.query<{ event_id: string }>(`SELECT event_id FROM ${this.repo.q}.events WHERE event_id = ANY($1::uuid[])`, [[...ids]]);
    this.probed = { ids, found: new Set(rows.map((r) => r.event_id)) };
  }

  /** Decides a command on a locked budget and appends its events at the exact version. */
  async apply(budgetId: string, command: BudgetCommand, commandId: string, metadata: EventMetadata): Promise<{ events: BudgetEvent[]; state: BudgetState }> {
    const folded = this.locked.get(budgetId) ?? { state: budgetDecider.initialState(), version: 0n };
    const events = budgetDecider.decide(command, folded.state);
    if (events.length === 0) return { events, state: folded.state };
    const result = await this.repo.store.append(budgetStreamId(budgetId), events, {
      expected: folded.version === 0n ? 'no-stream' : folded.version,
      commandId,
      metadata,
      client: this.tx,
    });
    const next = { state: events.reduce(budgetDecider.evolve, folded.state), version: result.nextExpectedVersion };
    this.locked.set(budgetId, next);
    this.afterCommit(() => this.repo.remember(budgetId, next));
    return { events, state: next.state };
  }
}

/**
 * Budget aggregates: read-your-writes state from their streams (never from the lagging projection),
 * with an in-process cache of folded state per stream version that is only topped up with the events
 * recorded since, so a long-lived budget is not refolded from version 1 on every call.
 */
@Injectable()
export class BudgetRepository {
  readonly q: string;
  private readonly cache = new Map<string, Folded>();

  constructor(
    readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  transaction<T>(work: (budgets: BudgetTransaction) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (tx, afterCommit) => work(new BudgetTransaction(tx, this, afterCommit)));
  }

  /**
   * Group commit for the hot path (may-spend, record-usage): requests that arrive while a batch is
   * being written wait and go together into the next transaction — one lock acquisition and one WAL
   * flush for all of them instead of one each, which is what a shared team budget needs when many
   * agents call at once. Items run in arrival order; a domain refusal fails its item only; an error
   * that spoils the transaction retries the batch, and a batch that still fails is split so one bad
   * item cannot fail the others.
   */
  batched<T>(budgetIds: string[], work: (budgets: BudgetTransaction) => Promise<T>, commandId?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ budgetIds, commandId, work, resolve: resolve as (value: unknown) => void, reject });
      this.kick();
    });
  }

  private readonly queue: Queued[] = [];
  private writing = false;

  private kick(): void {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0, MAX_BATCH);
    void this.write(batch).finally(() => {
      this.writing = false;
      this.kick();
    });
  }

  private async write(batch: Queued[]): Promise<void> {
    let outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>;
    try {
      outcomes = await this.transaction(async (bt) => {
        await bt.lock(batch.flatMap((item) => item.budgetIds));
        await bt.probe(batch.filter((item) => item.commandId).map((item) => ({ commandId: item.commandId!, budgetIds: item.budgetIds })));
        const results: typeof outcomes = [];
        for (const item of batch) {
          try {
            results.push({ ok: true, value: await item.work(bt) });
          } catch (error) {
            if (spoilsTransaction(error)) throw error;
            results.push({ ok: false, error });
          }
        }
        return results;
      });
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      await Promise.all(batch.map((item) => this.transaction(item.work).then(item.resolve, item.reject)));
      return;
    }
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i].resolve(outcome.value) : batch[i].reject(outcome.error)));
  }

  /** Current state of one budget outside any transaction (queries). */
  async load(budgetId: string): Promise<BudgetState> {
    const version = await this.store.streamVersion(budgetStreamId(budgetId));
    if (version === null) return budgetDecider.initialState();
    return (await this.foldTo(budgetId, version, this.pool)).state;
  }

  async foldTo(budgetId: string, version: bigint, db: Pool | PoolClient): Promise<Folded> {
    const cached = this.cache.get(budgetId);
    if (cached && cached.version === version) return cached;
    const base = cached && cached.version < version ? cached : { state: budgetDecider.initialState(), version: 0n };
    const events = (await this.store.readStream(budgetStreamId(budgetId), { fromVersion: base.version + 1n, client: db })) as Array<RecordedEvent & BudgetEvent>;
    const upTo = events.filter((e) => e.streamVersion <= version);
    const folded = { state: upTo.reduce<BudgetState>((s, e) => budgetDecider.evolve(s, e), base.state), version: upTo.length ? upTo[upTo.length - 1].streamVersion : base.version };
    this.remember(budgetId, folded);
    return folded;
  }

  remember(budgetId: string, folded: Folded): void {
    const cached = this.cache.get(budgetId);
    if (cached && cached.version >= folded.version) return;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(budgetId, folded);
  }
}
