import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { meter, storedContext } from '@headspace/telemetry';
import type { Pool, PoolClient } from 'pg';
import { dropAppendSignals, onAppended, releaseAppendSignals } from '../append-signal';
import { quoteIdent } from '../quote-ident';
import { toRecordedEvent } from '../row-mapping';
import type { RecordedEvent } from '../types';
import { ProcessorLease } from './processor-lease';
import { idlePeekSql, lagSql, positionOf, samePosition, typedPeekSql, batchSql, type BatchRow, type PeekRow, type Position } from './processor-sql';

export { batchSql, idlePeekSql, typedPeekSql } from './processor-sql';

const tracer = trace.getTracer('headspace.event-store');
const lagGauge = meter.createObservableGauge('headspace.processor.lag', {
  description: "Events after a processor's stored checkpoint that it would handle (its backlog, counted up to LAG_SCAN_LIMIT)",
});
const handledCounter = meter.createCounter('headspace.processor.events_handled');
/** The longest backlog a scrape counts: past it the gauge stays at the cap rather than scanning on. */
export const LAG_SCAN_LIMIT = 100_000;
/**
 * The processors started in this process, by schema and name (a replica started later replaces an
 * earlier one of the same name): each collection counts their backlogs, stopped ones included, so a
 * processor that stopped while its events kept coming shows them. One whose pool has closed is dropped.
 */
const lagSources = new Map<string, ProcessorRunner>();
lagGauge.addCallback(async (result) => {
  await Promise.all(
    [...lagSources].map(async ([key, runner]) => {
      try {
        result.observe(await runner.lag(), { processor: runner.name, schema: runner.reads.schema });
      } catch (error) {
        // Its pool ended, or its schema was dropped (invalid_schema_name, undefined_table): it is gone for good.
        const gone = runner.poolEnded || ['3F000', '42P01'].includes((error as { code?: string }).code ?? '');
        if (gone && lagSources.get(key) === runner) lagSources.delete(key);
      }
    }),
  );
});

export interface ProcessorOptions {
  pool: Pool;
  schema: string;
  /** Unique per processor within the schema; its checkpoint row is keyed by it. */
  name: string;
  /**
   * Handles a batch, in log order, inside the transaction that also advances the checkpoint:
   * write projection rows through `tx` and the rows and the checkpoint commit together.
   */
  handle(events: RecordedEvent[], tx: PoolClient): Promise<void>;
  /** Clears the processor's read model before a rebuild (inside the rebuild transaction). */
  reset?(tx: PoolClient): Promise<void>;
  /** Only these event types reach the handler (the checkpoint still advances past the others). */
  types?: string[];
  batchSize?: number;
  /**
   * Idle poll interval: the longest a caught-up processor takes to see an event appended by another
   * process (appends in this process wake it at once, see append-signal.ts).
   */
  pollIntervalMs?: number;
  /**
   * The longest idle interval (default 400 ms, at most a quarter of the lease): each look that finds nothing for this processor
   * doubles the interval from `pollIntervalMs` up to this, and any work, or an append signal for its
   * types, brings it back. An idle service then costs a few statements a second instead of forty per
   * processor; appends in this process still wake it at once, appends by other replicas are seen
   * within this after a quiet spell.
   */
  maxIdlePollMs?: number;
  /**
   * Whether appends in this process end an idle sleep early (default true). A processor whose work
   * is not urgent (a monitor raising alerts) turns it off and polls at its interval: under load it
   * then handles many events per transaction, and stays off the event loop between the requests.
   */
  wakeOnAppend?: boolean;
  leaseMs?: number;
  instanceId?: string;
  /**
   * For handlers with no effects in this database (the relay publishes to JetStream, idempotently
   * by event id): the batch is read and the checkpoint advanced by single statements, and the
   * handler runs between them outside any transaction. A batch transaction holds a transaction id
   * while its handler runs, and every processor's fence (the oldest running transaction id) waits
   * behind it — for the relay, a JetStream round trip. The lease still keeps one instance at work;
   * one that lost its lease while the handler ran does not move the checkpoint, and its batch is
   * handled again by the new holder. After a full batch the next one is read while the handler runs,
   * so a backlog's reads overlap its handling.
   */
  handleOutsideTransaction?: boolean;
  /**
   * With `handleOutsideTransaction`: how long the stored checkpoint may trail what was handled
   * (default 250 ms, at most a third of the lease): it is stored by the first batch or idle look
   * after that long, not after every batch; a stop stores it; a crash or a takeover repeats at most
   * this much.
   */
  checkpointEveryMs?: number;
  /**
   * Runs each time this instance takes the lease, before its first batch reads from the stored
   * checkpoint (which no other instance moves meanwhile). The relay learns here what it published
   * past that checkpoint before a crash or a takeover.
   */
  onLeaseAcquired?(): Promise<void>;
  /** Validation of events read from the log (e.g. EventStore.validated). */
  decode?(event: RecordedEvent): RecordedEvent;
  onError?(error: unknown): void;
}

type State = 'idle' | 'running' | 'stopping' | 'stopped';

/** The shortest pause between two looks at the log that append signals can cause. */
const APPEND_WAKE_GAP_MS = 5;
/** What a batch returns when the lease turned out to be another instance's: it read nothing. */
const LOST_LEASE = -1;
/** How many events the idle look of a processor with `types` reads (type and position only) to skip them unopened. */
const PEEK_PAGE = 100;

type Look = 'idle' | 'due' | 'skipped' | 'skipped-more';

/** The batch after a full one, read while the full one's handler ran outside a transaction. */
interface ReadAhead {
  from: Position;
  generation: number;
  rows: Promise<BatchRow[]>;
}

/**
 * Tails a service's event log in commit-safe order and feeds a handler, exactly once per event as
 * far as the database is concerned. One instance per processor name is active at a time across all
 * replicas, held by a lease on the checkpoint row (processor-lease.ts); the others wait and take
 * over when it expires. The statements are in processor-sql.ts.
 *
 * Ordering: events are read by (transaction_id, global_position) and only below
 * pg_snapshot_xmin(pg_current_snapshot()), so a transaction that committed after a later one can
 * never be skipped (ARCHITECTURE.md §2). Note the fence is cluster-wide: any long transaction on the
 * server holds every processor back, which is why write transactions are kept short.
 */
export class ProcessorRunner {
  readonly instanceId: string;
  private readonly q: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly maxIdlePollMs: number;
  private readonly checkpointEveryMs: number;
  /** Looks in a row that found nothing for this processor: the idle interval doubles with each. */
  private idleLooks = 0;
  private readonly leaseMs: number;
  private readonly lease: ProcessorLease;
  private state: State = 'idle';
  private loop?: Promise<void>;
  private wake?: () => void;
  private unsubscribe?: () => void;
  /** An append signal arrived while this instance was busy: skip the next idle sleep. */
  private appendedSincePoll = false;
  private fencedBacklog = false;
  private lastFence = 0n;
  /** The checkpoint this instance last committed (null until its first batch: another may have moved it). */
  private known: Position | null = null;
  /** Unlocked mode: the next batch, read while a full batch's handler ran (see readAhead). */
  private ahead: ReadAhead | null = null;
  /** Handled outside transactions past the stored checkpoint, not stored yet (see checkpointEveryMs). */
  private unstored = false;
  /** Bumped by rebuild(): a peek that started before it must not report "caught up". */
  private generation = 0;
  /**
   * The loop's looks and batches and rebuild() take turns: a batch that started before a rebuild
   * would carry the old read position past the reset checkpoint and store it again (its row lock
   * waits for the rebuild, then sees the reset row), skipping every event before it.
   */
  private turn: Promise<unknown> = Promise.resolve();
  private polls = 0;
  private caughtUpWaiters: Array<{ horizon: bigint; resolve: () => void }> = [];

  constructor(private readonly options: ProcessorOptions) {
    this.instanceId = options.instanceId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.q = quoteIdent(options.schema);
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 25;
    this.leaseMs = options.leaseMs ?? 10_000;
    // Never so long that the lease runs out between two looks (a look renews it once a third has passed).
    this.maxIdlePollMs = Math.max(this.pollIntervalMs, Math.min(options.maxIdlePollMs ?? 400, this.leaseMs / 4));
    this.checkpointEveryMs = Math.min(options.checkpointEveryMs ?? 250, this.leaseMs / 3);
    this.lease = new ProcessorLease(options.pool, this.q, options.name, this.instanceId, this.leaseMs);
  }

  get name(): string {
    return this.options.name;
  }

  /** Completed polls of the log (batches and idle looks alike). */
  get pollCount(): number {
    return this.polls;
  }

  get isLeaseHolder(): boolean {
    return this.lease.held;
  }

  /**
   * What it reads, for whoever asks whether it has passed a log position: its schema, its types
   * (undefined: all), and whether its stored checkpoint commits with its effects (false for handlers
   * outside transactions, whose checkpoint trails what they handled).
   */
  get reads(): { schema: string; types?: readonly string[]; checkpointWithEffects: boolean } {
    return { schema: this.options.schema, types: this.options.types, checkpointWithEffects: !this.options.handleOutsideTransaction };
  }

  start(): void {
    if (this.state === 'running') return;
    this.state = 'running';
    const wanted = this.options.types ? new Set(this.options.types) : undefined;
    if (this.options.wakeOnAppend !== false) {
      this.unsubscribe = onAppended(this.options.schema, (types) => {
        // Other processors' events: this one's next idle look moves past them, no need to hurry.
        if (wanted && types.length > 0 && !types.some((type) => wanted.has(type))) return;
        this.appendedSincePoll = true;
        this.idleLooks = 0;
        this.wake?.();
      });
    }
    lagSources.set(`${this.options.schema}\0${this.options.name}`, this);
    this.loop = this.run();
  }

  /** Finishes the batch in hand, then gives the lease up so another instance can take over at once. */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopping';
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    await this.dropReadAhead();
    if (this.lease.held) {
      // Stores how far it has read (batches it skipped, or handled outside transactions) as it gives the lease up.
      await this.lease.release(this.known ?? { transactionId: '0', globalPosition: 0n });
      this.lease.held = false;
    }
    this.state = 'stopped';
    this.releaseWaiters();
  }

  /** Simulates a crash: stops polling without releasing the lease (tests and chaos drills). */
  async kill(): Promise<void> {
    this.state = 'stopping';
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    await this.dropReadAhead();
    this.lease.held = false;
    this.state = 'stopped';
    this.releaseWaiters();
  }

  /**
   * Resolves once this instance has handled everything committed before the call: the horizon is
   * the next transaction id at call time, and a poll counts only when its fence has passed it (the
   * fence is cluster-wide, so a long transaction elsewhere delays this, never fools it).
   */
  async waitUntilCaughtUp(timeoutMs = 30_000): Promise<void> {
    const { rows } = await this.options.pool.query<{ horizon: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS horizon');
    const horizon = BigInt(rows[0].horizon);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.caughtUpWaiters = this.caughtUpWaiters.filter((w) => w !== waiter);
        reject(new Error(`processor ${this.options.name} did not catch up within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = { horizon, resolve: () => (clearTimeout(timer), resolve()) };
      this.caughtUpWaiters.push(waiter);
      this.wake?.();
    });
  }

  /**
   * Replays the log from position 0 into a fresh read model: resets the checkpoint and (through
   * `reset`) the projection in one transaction, then lets the loop run. Needs the lease.
   */
  async rebuild(): Promise<void> {
    await this.lease.ensureRow();
    await this.inTurn(() => this.resetCheckpoint());
    this.wake?.();
  }

  private async resetCheckpoint(): Promise<void> {
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      if (!(await this.lease.takeForRebuild(client))) throw new Error(`processor ${this.options.name} is held by another instance; cannot rebuild`);
      await this.options.reset?.(client);
      await client.query('COMMIT');
      this.lease.held = true;
      this.known = null;
      this.unstored = false;
      this.generation++;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** Events after this processor's stored checkpoint that it would handle (of its types), counted up to LAG_SCAN_LIMIT. */
  async lag(): Promise<number> {
    const { rows } = await this.options.pool.query<{ lag: string }>({
      name: `hs-processor-lag-${this.options.schema}`,
      text: lagSql(this.q),
      values: [this.options.name, this.options.types ?? null, LAG_SCAN_LIMIT],
    });
    return Number(rows[0]?.lag ?? 0);
  }

  /** Whether the pool it reads with has been ended (its lag can no longer be counted). */
  get poolEnded(): boolean {
    return (this.options.pool as Pool & { ended?: boolean }).ended === true;
  }

  private async run(): Promise<void> {
    let failures = 0;
    await this.lease.ensureRow().catch((error) => this.report(error));
    while (this.state === 'running') {
      try {
        if (!this.lease.held) {
          this.lease.held = await this.lease.tryAcquire();
          if (!this.lease.held) {
            await this.sleep(Math.min(this.leaseMs / 4, 1_000), false);
            continue;
          }
          // Failed: the lease goes unused, the next turn takes it (it is ours still) and runs this again.
          await this.options.onLeaseAcquired?.().catch((error: unknown) => {
            this.lease.held = false;
            throw error;
          });
        }
        // Events of its types were appended in this process since the last look: a batch is due, the
        // peek would only say so (one statement per batch for nothing under a steady stream of appends).
        const signalled = this.appendedSincePoll;
        this.appendedSincePoll = false;
        // A batch read ahead is in hand (or on its way): it is the look.
        const look = (signalled || this.ahead) && this.known ? 'due' : await this.inTurn(() => this.lookAhead());
        if (look !== 'due') {
          this.polls++;
          if (look === 'skipped-more') continue;
          this.releaseWaiters(this.lastFence);
          await this.sleep(this.idleMs());
          this.idleLooks++;
          continue;
        }
        const handled = await this.inTurn(() => this.processBatch());
        this.polls++;
        failures = 0;
        if (handled === LOST_LEASE) continue; // read nothing: whoever waits for "caught up" keeps waiting
        if (handled > 0) this.idleLooks = 0;
        if (handled < this.batchSize) {
          this.releaseWaiters(this.lastFence);
          // The batch read everything below its fence: look again at once only when events of this
          // processor's types were appended meanwhile, else sleep (a look now would find nothing
          // due, one statement per batch for nothing).
          if (handled === 0 || !this.appendedSincePoll) await this.sleep(this.idleMs());
        }
      } catch (error) {
        this.report(error);
        failures++;
        await this.sleep(Math.min(5_000, 50 * 2 ** Math.min(failures, 7)), false);
      }
    }
  }

  /**
   * The idle path: one read-only statement (no transaction id, no row lock, no WAL) asks whether
   * anything lies between the checkpoint this instance last wrote and the fence. The locked batch
   * transaction runs only when it does, or when the lease is due for renewal. A processor with
   * `types` also reads the type and position of the first PEEK_PAGE events below the fence: when
   * none is of its types it moves past them in memory — the appends of every other processor's
   * events then cost it this one statement, not a transaction of four.
   */
  private async lookAhead(): Promise<Look> {
    if (!this.known || Date.now() - this.lease.renewedAt > this.leaseMs / 3 || this.storeDue()) return 'due';
    const generation = this.generation;
    const types = this.options.types;
    // The first event after the checkpoint in log order (one index probe, whatever the log's size):
    // it is due when its transaction is below the fence. Events after it have larger transaction ids,
    // so if it is not due, none is. (Two EXISTS tests instead, with the generic plan of a prepared
    // statement, are sequential scans: a scan of the whole log on every idle poll.)
    const { rows } = await this.options.pool.query<PeekRow>(
      types
        ? {
            name: `hs-processor-typed-peek-${this.options.schema}`,
            text: typedPeekSql(this.q),
            values: [this.known.transactionId, this.known.globalPosition.toString(), types, PEEK_PAGE],
          }
        : { name: `hs-processor-peek-${this.options.schema}`, text: idlePeekSql(this.q), values: [this.known.transactionId, this.known.globalPosition.toString()] },
    );
    const peek = rows[0];
    // Committed events still behind the fence (an older transaction is open somewhere on the
    // server): look again soon rather than after the idle interval.
    this.fencedBacklog = peek.fenced === true;
    if (generation !== this.generation) return 'due';
    this.lastFence = BigInt(peek.fence);
    if (peek.pending !== true) return 'idle';
    if (!types || peek.wanted !== false || peek.last_tx === null || peek.last_pos === null) return 'due';
    this.known = { transactionId: peek.last_tx, globalPosition: BigInt(peek.last_pos) };
    return peek.seen < PEEK_PAGE ? 'skipped' : 'skipped-more';
  }

  /**
   * One transaction: fence, lock own checkpoint (lease check), read, handle, advance. With
   * `handleOutsideTransaction` the read and the advance are single statements and the handler runs
   * between them holding no transaction (see the option). Returns how many events it read, or
   * LOST_LEASE.
   */
  private async processBatch(): Promise<number> {
    const client = await this.options.pool.connect();
    const transactional = !this.options.handleOutsideTransaction;
    let open = false;
    try {
      if (transactional) {
        await client.query('BEGIN');
        open = true;
      }
      const joined = (transactional ? undefined : await this.takeReadAhead()) ?? (await this.readBatch(client, transactional, this.known));
      if (joined.length === 0) return this.lostLease();
      const from = joined[0];
      const rows = from.event_id === null ? [] : joined;
      this.lastFence = BigInt(from.fence_tx!);
      this.fencedBacklog = from.fenced === true;
      if (rows.length === 0) {
        if (this.known && !this.storeDue() && Date.now() - this.lease.renewedAt < this.leaseMs / 3) {
          // Nothing below the fence and nothing to store or renew: write nothing (the row lock, or in
          // unlocked mode the lease owner, already proved the lease is ours).
          if (open) await client.query('ROLLBACK');
          open = false;
          return 0;
        }
        const read = this.known ?? { transactionId: from.cp_tx!, globalPosition: BigInt(from.cp_pos!) };
        // The lease renewal also stores how far skipped batches got.
        if (!(await this.lease.renew(client, read))) return this.lostLease();
        if (open) await client.query('COMMIT');
        open = false;
        this.known = read;
        this.lease.renewedAt = Date.now();
        this.unstored = false;
        return 0;
      }
      const events = rows.map((row) => this.decode(toRecordedEvent(row)));
      const wanted = this.options.types ? events.filter((e) => this.options.types!.includes(e.type)) : events;
      const last = events[events.length - 1];
      if (wanted.length === 0 && Date.now() - this.lease.renewedAt < this.leaseMs / 3) {
        // None of these is for this processor: move past them in memory and write nothing — a commit
        // here would cost a WAL flush per batch of other processors' events. The stored checkpoint
        // catches up with the next commit (at the latest the lease renewal); a restart or a takeover
        // reads these again and skips them again.
        if (open) await client.query('ROLLBACK');
        open = false;
        this.known = positionOf(last);
        return rows.length;
      }
      if (!transactional && rows.length === this.batchSize) this.readAhead(last);
      if (wanted.length > 0) await this.handleInSpan(wanted, client);
      if (!transactional) releaseAppendSignals(client); // the handler's appends committed on their own
      if (transactional) {
        await client.query(this.lease.checkpointAndCommit(client, last));
        open = false;
        releaseAppendSignals(client); // what the handler appended in the batch's transaction
        this.lease.renewedAt = Date.now();
        this.unstored = false;
      } else if (Date.now() - this.lease.renewedAt < this.checkpointEveryMs) {
        this.unstored = true; // stored by a later batch, or by the first look after checkpointEveryMs
      } else {
        // Stored at most once per checkpointEveryMs, not per batch: under a steady stream of appends a
        // batch holds one or two events. A crash or a takeover repeats what the stored checkpoint
        // trails, which this mode's idempotent handlers allow.
        if (!(await this.lease.renew(client, last))) return this.lostLease(); // the new holder repeats this batch
        this.lease.renewedAt = Date.now();
        this.unstored = false;
      }
      this.known = positionOf(last);
      handledCounter.add(wanted.length, { processor: this.options.name });
      return rows.length;
    } finally {
      dropAppendSignals(client); // a batch that did not commit appended nothing
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  /**
   * The batch statement, from `from` (how far this instance has read, which may be past the stored
   * checkpoint: batches it skipped). One statement: the snapshot (and so the fence) is taken when it
   * starts, before the row lock gives the transaction an xid of its own; the lock proves the lease is
   * still ours (unlocked: the lease owner does).
   */
  private async readBatch(db: Pick<Pool, 'query'>, transactional: boolean, from: Position | null): Promise<BatchRow[]> {
    const { rows } = await db.query<BatchRow>({
      name: `hs-processor-batch${transactional ? '' : '-unlocked'}-${this.options.schema}`,
      text: batchSql(this.q, transactional),
      values: [this.options.name, this.instanceId, this.batchSize, from?.transactionId ?? '0', (from?.globalPosition ?? 0n).toString()],
    });
    return rows;
  }

  /**
   * Unlocked mode, after a full batch: reads the next one while the handler runs (for the relay, while
   * its PubAcks come back), so a backlog's reads overlap its publishes.
   */
  private readAhead(after: RecordedEvent): void {
    const from = positionOf(after);
    const rows = this.readBatch(this.options.pool, false, from);
    rows.catch(() => undefined); // a read-ahead that failed is read again when its turn comes
    this.ahead = { from, generation: this.generation, rows };
  }

  /**
   * The batch read ahead, when it is the next one still: read from where this instance has got to, in
   * this generation, and with its lease check still standing. That check was made when it was read;
   * no other instance can have taken an unexpired lease since, and this one's was renewed less than
   * two thirds of a lease ago. Undefined otherwise, or when the read failed: the caller reads now.
   */
  private async takeReadAhead(): Promise<BatchRow[] | undefined> {
    const ahead = this.ahead;
    this.ahead = null;
    if (!ahead || ahead.generation !== this.generation || !this.known || !samePosition(ahead.from, this.known)) return undefined;
    if (Date.now() - this.lease.renewedAt >= (this.leaseMs * 2) / 3) return undefined;
    return ahead.rows.catch(() => undefined);
  }

  private async handleInSpan(events: RecordedEvent[], client: PoolClient): Promise<void> {
    // In the trace of the events it handles: a child of theirs when they share one, else linked to each (ADR 0028).
    const causes = [...new Map(events.flatMap((e) => trace.getSpanContext(storedContext(e.metadata) ?? ROOT_CONTEXT) ?? []).map((c) => [c.spanId, c])).values()];
    const parent = causes.length === 1 ? trace.setSpanContext(ROOT_CONTEXT, causes[0]) : ROOT_CONTEXT;
    const links = causes.length > 1 ? causes.slice(0, 32).map((context) => ({ context })) : [];
    await tracer.startActiveSpan(`process ${this.options.name}`, { kind: SpanKind.CONSUMER, links }, parent, async (span) => {
      span.setAttributes({ 'headspace.processor': this.options.name, 'headspace.event_count': events.length });
      try {
        await this.options.handle(events, client);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private decode(event: RecordedEvent): RecordedEvent {
    return this.options.decode ? this.options.decode(event) : event;
  }

  /** The stored checkpoint trails what this instance has read, and has for checkpointEveryMs. */
  private storeDue(): boolean {
    return this.unstored && Date.now() - this.lease.renewedAt >= this.checkpointEveryMs;
  }

  /** Lets a read-ahead in flight finish (no query outlives a stop) and forgets it. */
  private async dropReadAhead(): Promise<void> {
    const ahead = this.ahead;
    this.ahead = null;
    await ahead?.rows.catch(() => undefined);
  }

  private lostLease(): number {
    this.lease.held = false;
    this.known = null;
    this.ahead = null;
    this.unstored = false;
    return LOST_LEASE;
  }

  /** Releases the waiters whose horizon the last fence has reached (all of them when stopping). */
  private releaseWaiters(fence?: bigint): void {
    const ready = this.caughtUpWaiters.filter((w) => fence === undefined || fence >= w.horizon);
    this.caughtUpWaiters = this.caughtUpWaiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }

  /** While someone waits for "caught up" or committed events wait behind the fence, poll eagerly; else back off while idle. */
  private idleMs(): number {
    if (this.caughtUpWaiters.length > 0 || this.fencedBacklog) return Math.min(this.pollIntervalMs, 10);
    return Math.min(this.maxIdlePollMs, this.pollIntervalMs * 2 ** Math.min(this.idleLooks, 16));
  }

  /**
   * Idle sleeps end early on an append signal, but no sooner than APPEND_WAKE_GAP_MS after they
   * began, so a burst of appends costs each processor at most one look per gap; a stop ends any
   * sleep at once; failure backoffs ignore append signals.
   */
  private sleep(ms: number, onAppend = true): Promise<void> {
    // A stop that came while the loop was busy (its wake found no sleep to end) ends this one before it begins.
    if (this.state !== 'running') return Promise.resolve();
    const startedAt = Date.now();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout;
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const soon = () => {
        clearTimeout(timer);
        timer = setTimeout(done, Math.max(0, startedAt + APPEND_WAKE_GAP_MS - Date.now()));
      };
      if (onAppend && this.appendedSincePoll) ms = Math.min(ms, APPEND_WAKE_GAP_MS);
      timer = setTimeout(done, ms);
      this.wake = () => {
        if (this.state !== 'running') done();
        else if (onAppend) soon();
      };
    });
  }

  private report(error: unknown): void {
    if (this.options.onError) this.options.onError(error);
    else console.error(`[processor ${this.options.name}]`, error);
  }
}
