import { deepStrictEqual, ok } from 'node:assert/strict';
import type { Pool } from 'pg';

// Structural views of the event store and the Projection base: this library sits below both
// (their own specs import it), so it names only what it uses.
export interface SpecEvent {
  type: string;
  data: unknown;
}

interface SpecStore {
  readonly pool: Pool;
  append(streamId: string, events: SpecEvent[], options: { expected: 'any' }): Promise<unknown>;
}

export interface SpecProjection {
  readonly tables: readonly string[];
  readonly runner: { start(): void; stop(): Promise<void>; waitUntilCaughtUp(): Promise<void>; readonly reads: { schema: string } };
  rebuild(): Promise<void>;
}

/** Events to append to one stream, in order. */
export interface StreamEvents {
  streamId: string;
  events: SpecEvent[];
}

export const inStream = (streamId: string, ...events: SpecEvent[]): StreamEvents => ({ streamId, events });

/** A query of the projection's rows. */
export interface RowsQuery {
  sql: string;
  params?: unknown[];
}

export type Then = (pool: Pool) => Promise<void>;

/**
 * Given/when/then for a read model against real PostgreSQL: the given events are appended to the
 * store and handled, then the when events, each by the projection's own runner (under its lease,
 * rows and checkpoint in one transaction); then its rows are read back. The store validates every
 * event against its contract, so a spec cannot feed a projection what the log would refuse.
 *
 * Specs of one file share the log and the tables: each uses streams and keys of its own and asks
 * only for its rows.
 */
export class ProjectionSpec<P extends SpecProjection> {
  private constructor(
    private readonly store: SpecStore,
    private readonly create: () => P,
  ) {}

  /** `projection`: a fresh instance on `store` (one per spec, started and stopped by it). */
  static for<P extends SpecProjection>(store: SpecStore, projection: () => P): ProjectionSpec<P> {
    return new ProjectionSpec(store, projection);
  }

  given(...history: StreamEvents[]) {
    return {
      when: (...events: StreamEvents[]) => this.steps([history, events]),
      ...this.steps([history]),
    };
  }

  when(...events: StreamEvents[]) {
    return this.steps([events]);
  }

  /**
   * Everything the log holds, replayed from position 0 into emptied tables, gives the rows the live
   * projection holds now.
   */
  async rebuiltEqualsLive(): Promise<void> {
    await this.running(async (projection) => {
      await expectRebuiltEqualsLive(projection, this.store.pool);
    });
  }

  private steps(batches: StreamEvents[][]) {
    return {
      /** The rows `query` returns are `expected`, row for row and in order; each expected row names only the columns that matter. */
      then: (query: RowsQuery, expected: Array<Record<string, unknown>>) =>
        this.run(batches, async (pool) => {
          const { rows } = await pool.query<Record<string, unknown>>(query.sql, query.params);
          const seen = rows.map((row, i) => Object.fromEntries(Object.keys(expected[i] ?? row).map((column) => [column, row[column]])));
          deepStrictEqual(seen, expected);
        }),
      /** Any assertion on the database once the events are handled. */
      thenAssert: (assert: Then) => this.run(batches, assert),
    };
  }

  private async run(batches: StreamEvents[][], assert: Then): Promise<void> {
    await this.running(async (projection) => {
      for (const batch of batches) {
        for (const { streamId, events } of batch) await this.store.append(streamId, events, { expected: 'any' });
        await projection.runner.waitUntilCaughtUp();
      }
      await assert(this.store.pool);
    });
  }

  private async running(work: (projection: P) => Promise<void>): Promise<void> {
    const projection = this.create();
    projection.runner.start();
    try {
      await work(projection);
    } finally {
      await projection.runner.stop();
    }
  }
}

/** Every row of the projection's tables, as JSON text, sorted (row order is not part of a table). */
async function contentsOf(projection: SpecProjection, pool: Pool): Promise<Record<string, string[]>> {
  const schema = projection.runner.reads.schema;
  const entries = await Promise.all(
    projection.tables.map(async (table) => {
      const { rows } = await pool.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM "${schema}"."${table}" t`);
      return [table, rows.map((r) => r.row).sort()] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Rebuilt == live for a running projection (the instance holding its lease): its tables, caught up,
 * are compared with what a replay from position 0 writes into them. Fails on empty tables, which
 * would prove nothing. Returns the live contents for further checks.
 */
export async function expectRebuiltEqualsLive(projection: SpecProjection, pool: Pool): Promise<Record<string, string[]>> {
  await projection.runner.waitUntilCaughtUp();
  const live = await contentsOf(projection, pool);
  ok(Object.values(live).flat().length > 0, `no rows in ${projection.tables.join(', ')}: an empty rebuild proves nothing`);
  await projection.rebuild();
  await projection.runner.waitUntilCaughtUp();
  deepStrictEqual(await contentsOf(projection, pool), live);
  return live;
}
