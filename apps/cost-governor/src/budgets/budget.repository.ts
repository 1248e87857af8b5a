import { Inject, Injectable } from '@nestjs/common';
import { budgetStreamId } from '@headspace/contracts';
import { EventStore, quoteIdent, type Queryable, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import { budgetDecider, type BudgetEvent, type BudgetState } from './budget.decider';
import type { Folded } from './budget-tick';

const CACHE_LIMIT = 10_000;

/**
 * Budget aggregates: read-your-writes state from their streams (never from the lagging projection),
 * kept folded in memory per instance, missing budgets included (at version 0). The cache is never
 * trusted on its own: whatever is decided on it is appended, or checked, at the version it was
 * folded at (BudgetGroupCommit), and a read tops a budget that moved (another instance appended)
 * up with just the events since.
 */
@Injectable()
export class BudgetRepository {
  private readonly q: string;
  private readonly cache = new Map<string, Folded>();

  constructor(
    readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  /** The versions of these streams (missing ones are absent) and which of `eventIds` are recorded, in one round trip. */
  async peek(streamIds: string[], eventIds: string[], db: Queryable = this.pool): Promise<{ versions: Map<string, bigint>; recorded: Set<string> }> {
    const { rows } = await db.query<{ id: string; version: string | null }>({
      name: `cg-budget-peek-${this.q}`,
      text: `SELECT stream_id AS id, version::text AS version FROM ${this.q}.streams WHERE stream_id = ANY ($1::text[])
             UNION ALL
             SELECT event_id::text, NULL FROM ${this.q}.events WHERE event_id = ANY ($2::uuid[])`,
      values: [streamIds, eventIds],
    });
    const versions = new Map<string, bigint>();
    const recorded = new Set<string>();
    for (const row of rows) {
      if (row.version === null) recorded.add(row.id);
      else versions.set(row.id, BigInt(row.version));
    }
    return { versions, recorded };
  }

  /** Locks these budgets' stream rows in id order (inside the caller's transaction): the contended path. */
  async lock(budgetIds: string[], db: Queryable): Promise<void> {
    await db.query(`SELECT 1 FROM ${this.q}.streams WHERE stream_id = ANY ($1::text[]) ORDER BY stream_id FOR UPDATE`, [budgetIds.map(budgetStreamId)]);
  }

  /**
   * Each budget folded at (at least) the version read: from the cache when it is current, else the
   * cached state topped up with the events since — one query for all the budgets that moved.
   */
  async fold(budgetIds: string[], versions: Map<string, bigint>, db: Queryable = this.pool): Promise<Map<string, Folded>> {
    const result = new Map<string, Folded>();
    const stale = new Map<string, Folded>();
    for (const id of budgetIds) {
      const version = versions.get(budgetStreamId(id)) ?? 0n;
      const cached = this.cache.get(id);
      if (version === 0n) {
        result.set(id, { state: budgetDecider.initialState(), version: 0n });
        this.remember(id, result.get(id)!);
      } else if (cached && cached.version >= version) result.set(id, cached);
      else stale.set(id, cached ?? { state: budgetDecider.initialState(), version: 0n });
    }
    if (stale.size === 0) return result;
    const ids = [...stale.keys()];
    const { rows } = await db.query<{ stream_id: string; stream_version: string; type: string; data: unknown }>({
      name: `cg-budget-catch-up-${this.q}`,
      text: `SELECT e.stream_id, e.stream_version, e.type, e.data
               FROM ${this.q}.events e JOIN unnest($1::text[], $2::bigint[]) AS f (stream_id, after) ON e.stream_id = f.stream_id AND e.stream_version > f.after
              ORDER BY e.stream_id, e.stream_version`,
      values: [ids.map(budgetStreamId), ids.map((id) => stale.get(id)!.version.toString())],
    });
    for (const row of rows) {
      const id = row.stream_id.slice('budget-'.length);
      const event = this.store.validated({ type: row.type, data: row.data } as RecordedEvent) as RecordedEvent & BudgetEvent;
      const base = stale.get(id)!;
      stale.set(id, { state: budgetDecider.evolve(base.state, event), version: BigInt(row.stream_version) });
    }
    for (const [id, folded] of stale) {
      result.set(id, folded);
      this.remember(id, folded);
    }
    return result;
  }

  /** Every one of these budgets as last seen (missing ones at version 0n), or undefined when one was never seen. */
  cached(budgetIds: string[]): Map<string, Folded> | undefined {
    const result = new Map<string, Folded>();
    for (const id of budgetIds) {
      const folded = this.cache.get(id);
      if (!folded) return undefined;
      result.set(id, folded);
    }
    return result;
  }

  /** Current state of one budget (queries). */
  async load(budgetId: string): Promise<BudgetState> {
    const { versions } = await this.peek([budgetStreamId(budgetId)], []);
    return (await this.fold([budgetId], versions)).get(budgetId)!.state;
  }

  /** Keeps a budget's state at a committed version (never replacing a newer one). */
  remember(budgetId: string, folded: Folded): void {
    const cached = this.cache.get(budgetId);
    if (cached && cached.version >= folded.version) return;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(budgetId, folded);
  }
}
