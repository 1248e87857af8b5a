import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { meter, storedTraceOf } from '@headspace/telemetry';
import type { EventRegistry } from '@headspace/contracts';
import type { Pool, PoolClient } from 'pg';
import { appendManyParameters, appendManyStatement, expectations, firstConflict, isAppendManyConflict } from './append-many';
import { appendOnceStatement, isAppendOnceRace, type OnceAppend } from './append-once';
import { appendOneStatements, appendStatements, type CasKind } from './append-sql';
import { recordPosition } from './appended-position';
import { deferAppendSignal, dropAppendSignals, releaseAppendSignals, signalAppended } from './append-signal';
import { ConcurrencyError } from './concurrency-error';
import { contextMetadata } from './command-handler/command-context';
import { categoryOf, deterministicEventId } from './event-id';
import { quoteIdent } from './quote-ident';
import { withRetry } from './retry';
import { EVENT_COLUMNS, toRecordedEvent, type EventRow } from './row-mapping';
import type { AppendOptions, AppendResult, ExpectedVersion, NewEvent, Queryable, RecordedEvent, StreamAppend, StreamCheck } from './types';

const tracer = trace.getTracer('headspace.event-store');
const appended = meter.createCounter('headspace.events.appended', {
  description: 'Events appended to the event store',
});

export interface EventStoreOptions {
  pool: Pool;
  /** The owning service's PostgreSQL schema. */
  schema: string;
  /** When given, every appended and read event is validated against its contract. */
  registry?: EventRegistry;
}

export class EventStore {
  readonly schema: string;
  /** The pool it appends through: processors of this store's log poll and checkpoint through it too. */
  readonly pool: Pool;
  private readonly registry?: EventRegistry;
  private readonly q: string;
  private readonly statements: Record<CasKind, string>;
  private readonly singleStatements: Record<CasKind, string>;
  private readonly manyStatement: string;
  private readonly onceStatement: string;

  constructor(options: EventStoreOptions) {
    this.pool = options.pool;
    this.schema = options.schema;
    this.registry = options.registry;
    this.q = quoteIdent(options.schema);
    this.statements = appendStatements(this.q);
    this.singleStatements = appendOneStatements(this.q);
    this.manyStatement = appendManyStatement(this.q);
    this.onceStatement = appendOnceStatement(this.q);
  }

  /**
   * Runs `work` in one transaction on a client of the store's pool and commits it; on any error it
   * rolls back and rethrows. Appends made with `client` wake this process's processors once the
   * commit is done (an append in a caller's own BEGIN/COMMIT wakes nobody until the caller calls
   * `releaseAppendSignals(client)` after committing).
   */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      releaseAppendSignals(client);
      return result;
    } catch (error) {
      dropAppendSignals(client);
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const category = categoryOf(streamId);
    const prepared = events.map((event, index) => this.prepare(event, index, streamId, options));
    if (typeof options.expected === 'bigint' && options.expected < 0n) throw new Error(`expected version must be >= 0, got ${options.expected}`);

    return tracer.startActiveSpan(`append ${category}`, { kind: SpanKind.INTERNAL }, async (span) => {
      span.setAttributes({
        'headspace.stream_id': streamId,
        'headspace.event_count': events.length,
        'headspace.event_types': [...new Set(events.map((e) => e.type))].join(','),
      });
      try {
        const result = await this.callAppend(options.client ?? this.pool, streamId, category, options.expected, prepared);
        this.record(result);
        span.setAttribute('headspace.replayed', result.replayed);
        if (!result.replayed) {
          appended.add(events.length, { category, schema: this.schema });
          this.signal(options.client, events.map((e) => e.type));
        }
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /**
   * Appends to several streams in one statement (one round trip), all or nothing — a group commit
   * of many commands. Each entry is one command's events on one stream; entries on the same stream
   * follow each other in order, the first one's `expected` is compared and every later one must
   * expect the version the earlier ones leave. `checks` assert the versions of streams the events
   * were decided on but that are not written (e.g. a budget that refused, or one that must still
   * not exist). Only exact versions and 'no-stream' are supported. A wrong version anywhere is a
   * ConcurrencyError and nothing is written; with no appends, only the checks are made. There is
   * no replay detection: an event id recorded before (a retried command) fails the whole call
   * with the database's unique violation (23505), so callers look their commands up first.
   */
  async appendMany(appends: StreamAppend[], options: { client?: PoolClient; checks?: StreamCheck[] } = {}): Promise<AppendResult[]> {
    const checks = options.checks ?? [];
    const db = options.client ?? this.pool;
    if (appends.length === 0) {
      const conflict = checks.length ? firstConflict(expectations([], checks), await this.versionsOf(checks.map((c) => c.streamId), db)) : undefined;
      if (conflict) throw conflict;
      return [];
    }
    const plan = appendManyParameters(appends, checks, (event, index, entry) => this.prepare(event, index, entry.streamId, entry));
    return tracer.startActiveSpan('append-many', { kind: SpanKind.INTERNAL }, async (span) => {
      span.setAttributes({ 'headspace.stream_count': plan.streamCount, 'headspace.event_count': plan.eventCount });
      try {
        const { rows } = await db
          .query<AppendedRow & { stream_id: string }>({ name: `hs-append-many-${this.schema}`, text: this.manyStatement, values: plan.values })
          .catch(async (error: unknown) => {
            if (!isAppendManyConflict(error)) throw error;
            // Inside the caller's transaction the failure aborted it: nothing can be looked up, the actual version is unknown.
            const expected = expectations(appends, checks);
            const conflict = options.client ? undefined : firstConflict(expected, await this.versionsOf([...expected.keys()], db));
            throw conflict ?? new ConcurrencyError(appends[0].streamId, appends[0].expected, null);
          });
        const byStream = new Map<string, AppendedRow[]>();
        for (const row of rows) {
          const list = byStream.get(row.stream_id);
          if (list) list.push(row);
          else byStream.set(row.stream_id, [row]);
        }
        const taken = new Map<string, number>();
        const results = appends.map((entry) => {
          const from = taken.get(entry.streamId) ?? 0;
          taken.set(entry.streamId, from + entry.events.length);
          return appendResult(entry.streamId, byStream.get(entry.streamId)!.slice(from, from + entry.events.length), false);
        });
        for (const result of results) this.record(result);
        for (const [category, count] of plan.categories) appended.add(count, { category, schema: this.schema });
        this.signal(options.client, appends.flatMap((entry) => entry.events.map((e) => e.type)));
        return results;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /**
   * Appends many commands' events in one statement, each at whatever version its stream is at
   * (expected 'any') and each at most once: an entry whose command id already recorded its events
   * (earlier, by another transaction, or by an earlier entry of the same call) writes nothing and is
   * answered `replayed` with the original positions. The others are appended all or nothing. Made
   * for group commits of commands that need no read before they append (ingest receipts).
   */
  async appendOnce(appends: OnceAppend[]): Promise<AppendResult[]> {
    if (appends.length === 0) return [];
    const prepared = appends.map((entry) => {
      if (entry.events.length === 0) throw new Error(`appendOnce: no events for ${entry.streamId}`);
      return entry.events.map((event, index) => this.prepare(event, index, entry.streamId, entry));
    });
    const ids = prepared.map((events) => events.map((e) => e.eventId as string));
    // The same command twice in one call is sent once; the later entry is its replay.
    const firstOf = new Map<string, number>();
    const rows: unknown[] = [];
    appends.forEach((entry, i) => {
      if (firstOf.has(ids[i][0])) return;
      firstOf.set(ids[i][0], i);
      const category = categoryOf(entry.streamId);
      for (const e of prepared[i]) rows.push({ stream: entry.streamId, category, id: e.eventId, type: e.type, sv: e.schemaVersion, data: e.data, meta: e.metadata });
    });
    const values = [JSON.stringify(rows)];
    return tracer.startActiveSpan('append-once', { kind: SpanKind.INTERNAL }, async (span) => {
      span.setAttributes({ 'headspace.command_count': appends.length, 'headspace.event_count': rows.length });
      try {
        const found = await withRetry(() => this.pool.query<AppendedRow & { replayed: boolean }>({ name: `hs-append-once-${this.schema}`, text: this.onceStatement, values }), {
          retryOn: isAppendOnceRace,
        });
        const byId = new Map(found.rows.map((row) => [row.event_id, row]));
        const fresh = new Set<number>();
        const results = appends.map((entry, i) => {
          const own = ids[i].map((id) => byId.get(id)!);
          const replayed = own[0].replayed || firstOf.get(ids[i][0]) !== i;
          if (!replayed) fresh.add(i);
          return this.record(appendResult(entry.streamId, own, replayed));
        });
        const byCategory = new Map<string, number>();
        const types: string[] = [];
        for (const i of fresh) {
          const category = categoryOf(appends[i].streamId);
          byCategory.set(category, (byCategory.get(category) ?? 0) + appends[i].events.length);
          for (const e of appends[i].events) types.push(e.type);
        }
        for (const [category, count] of byCategory) appended.add(count, { category, schema: this.schema });
        if (types.length) this.signal(undefined, types);
        span.setAttribute('headspace.replayed_count', appends.length - fresh.size);
        return results;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async versionsOf(streamIds: string[], db: Queryable): Promise<Map<string, bigint>> {
    const { rows } = await db.query<{ stream_id: string; version: string }>(`SELECT stream_id, version FROM ${this.q}.streams WHERE stream_id = ANY ($1::text[])`, [streamIds]);
    return new Map(rows.map((r) => [r.stream_id, BigInt(r.version)]));
  }

  async readStream(streamId: string, options: { fromVersion?: bigint; client?: Queryable } = {}): Promise<RecordedEvent[]> {
    const { rows } = await (options.client ?? this.pool).query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${this.q}.events WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version`,
      [streamId, (options.fromVersion ?? 1n).toString()],
    );
    return rows.map((row) => this.validated(toRecordedEvent(row)));
  }

  /** Folds a stream into state. `version` is 0n when the stream does not exist. */
  async aggregate<S>(
    streamId: string,
    evolve: (state: S, event: RecordedEvent) => S,
    initial: S,
    options: { client?: Queryable } = {},
  ): Promise<{ state: S; version: bigint }> {
    const events = await this.readStream(streamId, options);
    let state = initial;
    for (const event of events) state = evolve(state, event);
    return { state, version: events.length ? events[events.length - 1].streamVersion : 0n };
  }

  async streamVersion(streamId: string, client: Queryable = this.pool): Promise<bigint | null> {
    const { rows } = await client.query<{ version: string }>(`SELECT version FROM ${this.q}.streams WHERE stream_id = $1`, [streamId]);
    return rows.length ? BigInt(rows[0].version) : null;
  }

  /** Validates an event read from the log against its contract (when a registry is configured). */
  validated<E extends RecordedEvent>(event: E): E {
    if (!this.registry) return event;
    return { ...event, data: this.registry.parse(event.type, event.data) };
  }

  /**
   * The result of a command that already appended to this stream (same command id), or null: command
   * handlers check it before deciding, so a retry is answered as the first attempt was even when the
   * state has moved on since (a retried "create" must not become "already exists"). A handler that
   * reads the whole stream anyway asks `priorResultIn(history, commandId)` instead: one statement less.
   */
  async priorResult(streamId: string, commandId: string, db: Queryable = this.pool): Promise<AppendResult | null> {
    const { rows } = await db.query<AppendedRow>(
      `SELECT event_id, stream_version, global_position, transaction_id::text AS tx_id FROM ${this.q}.events
        WHERE stream_id = $1 AND metadata ->> 'commandId' = $2 ORDER BY stream_version`,
      [streamId, commandId],
    );
    return rows.length ? this.record(appendResult(streamId, rows, true)) : null;
  }

  /** The original result of a command whose events are already recorded. */
  private async replayOf(streamId: string, eventIds: string[], db: Queryable): Promise<AppendResult | null> {
    const { rows } = await db.query<AppendedRow>(
      `SELECT event_id, stream_version, global_position, transaction_id::text AS tx_id FROM ${this.q}.events WHERE event_id = ANY ($1::uuid[]) ORDER BY global_position`,
      [eventIds],
    );
    return rows.length ? appendResult(streamId, rows, true) : null;
  }

  /** Where the request being served (if any) got to in this log: its reply names it, so its client can read its own writes. */
  private record(result: AppendResult): AppendResult {
    if (result.lastTransactionId) recordPosition(this.schema, { transactionId: result.lastTransactionId, globalPosition: result.lastPosition });
    return result;
  }

  /** Committed appends wake processors now; those in a caller's transaction when it commits. */
  private signal(client: PoolClient | undefined, types: string[]): void {
    if (client) deferAppendSignal(client, this.schema, types);
    else signalAppended(this.schema, types);
  }

  private prepare(event: NewEvent, index: number, streamId: string, options: Pick<AppendOptions, 'commandId' | 'metadata' | 'context'>) {
    const data = this.registry ? this.registry.parse(event.type, event.data) : event.data;
    const schemaVersion = this.registry ? this.registry.get(event.type).schemaVersion : 1;
    const commandId = options.commandId ?? options.context?.commandId;
    const fromContext = options.context ? contextMetadata(options.context, commandId) : {};
    const metadata = { ...fromContext, ...options.metadata, ...event.metadata, ...(commandId ? { commandId } : {}) };
    // Unless its writer named a trace, an event carries the caller's: relayed messages, their consumers
    // and SSE frames continue the trace of whatever appended it (ADR 0028).
    if (metadata.traceparent === undefined) Object.assign(metadata, storedTraceOf());
    const eventId = commandId ? deterministicEventId(commandId, streamId, index) : null;
    return { eventId, type: event.type, schemaVersion, data, metadata };
  }

  private async callAppend(
    db: Queryable,
    streamId: string,
    category: string,
    expected: ExpectedVersion,
    events: ReturnType<EventStore['prepare']>[],
  ): Promise<AppendResult> {
    const kind: CasKind = typeof expected === 'bigint' ? (expected === 0n ? 'no-stream' : 'exact') : expected;
    const single = events.length === 1;
    const values: unknown[] = single
      ? [streamId, category, 1, events[0].eventId, events[0].type, events[0].schemaVersion, JSON.stringify(events[0].data), JSON.stringify(events[0].metadata)]
      : [
          streamId,
          category,
          events.length,
          JSON.stringify(events.map((e) => ({ id: e.eventId, type: e.type, sv: e.schemaVersion, data: e.data, meta: e.metadata }))),
        ];
    if (kind === 'exact') values.push((expected as bigint).toString());
    const commandIds = events.map((e) => e.eventId).filter((id): id is string => id !== null);
    try {
      const { rows } = await db.query<AppendedRow>({
        name: `hs-append${single ? '1' : ''}-${kind}-${this.schema}`,
        text: single ? this.singleStatements[kind] : this.statements[kind],
        values,
      });
      if (rows.length > 0) return appendResult(streamId, rows, false);
    } catch (error) {
      const pgError = error as { code?: string; constraint?: string };
      const duplicate = pgError.code === '23505' && pgError.constraint === 'events_event_id_unique';
      if (!duplicate || isClientInTransaction(db)) throw error;
    }
    // Nothing was written: either this command already ran (a replay), or the version was wrong.
    const original = commandIds.length > 0 ? await this.replayOf(streamId, commandIds, db) : null;
    if (original) return original;
    throw new ConcurrencyError(streamId, expected, await this.streamVersion(streamId, db));
  }
}

interface AppendedRow {
  event_id: string;
  stream_version: string;
  global_position: string;
  tx_id?: string;
}

function appendResult(streamId: string, rows: AppendedRow[], replayed: boolean): AppendResult {
  const last = rows[rows.length - 1];
  return {
    streamId,
    nextExpectedVersion: BigInt(last.stream_version),
    firstPosition: BigInt(rows[0].global_position),
    lastPosition: BigInt(last.global_position),
    ...(last.tx_id ? { lastTransactionId: last.tx_id } : {}),
    eventIds: rows.map((row) => row.event_id),
    replayed,
  };
}

function isClientInTransaction(db: Queryable): boolean {
  return !('totalCount' in db);
}

/** `EventStore.priorResult` answered from a stream already read in full: the command's events in it, or null. */
export function priorResultIn(history: readonly RecordedEvent[], commandId: string): AppendResult | null {
  const mine = history.filter((event) => event.metadata.commandId === commandId);
  if (mine.length === 0) return null;
  const last = mine[mine.length - 1];
  recordPosition(undefined, { transactionId: last.transactionId, globalPosition: last.globalPosition });
  return {
    streamId: last.streamId,
    nextExpectedVersion: last.streamVersion,
    firstPosition: mine[0].globalPosition,
    lastPosition: last.globalPosition,
    lastTransactionId: last.transactionId,
    eventIds: mine.map((event) => event.eventId),
    replayed: true,
  };
}
