import { randomUUID } from 'node:crypto';
import type { Notification, Pool, PoolConfig } from 'pg';
import { onAppended, signalAppended } from './append-signal';
import { PgClient } from './pg-client';

/** NOTIFY payloads must stay under 8,000 bytes; past this the types are left out (wakes every processor). */
const MAX_PAYLOAD = 7_000;

export interface AppendWakeupsOptions {
  pool: Pool;
  schema: string;
  /** Who announces: its own notifications are skipped (its processors were woken in-process). Default: this process. */
  instanceId?: string;
  log?: (line: string) => void;
  /** First wait before the LISTEN connection is opened again after it broke (doubles up to 30 s). */
  reconnectMs?: number;
}

/** The LISTEN connection's application_name (pg_stat_activity). */
export const LISTENER_NAME = 'hs-append-wakeups';

/** In-process signals reach every processor of the process, so one id per process is enough. */
const PROCESS_ID = randomUUID();

/** The channel of a schema's appends. */
export const appendChannel = (schema: string) => `hs_appended_${schema}`;

/**
 * Cross-process wake-up (ARCHITECTURE.md §2, issue 28 scope 2): committed appends of this process are
 * announced with one coalesced `pg_notify` per event-loop turn, and a dedicated connection LISTENs
 * for other processes' announcements and wakes this process's processors, so a replica sees another
 * replica's appends at once instead of at its next idle poll. The notify is sent after the commit,
 * outside the append's transaction: a NOTIFY inside it would serialise every committing append on
 * PostgreSQL's notification queue lock. Lossy by design: a lost notification (connection down,
 * listener reconnecting) costs only latency, since processors keep polling.
 */
export class AppendWakeups {
  private listener?: PgClient;
  /** The connection being opened or in use: events of an earlier, abandoned one are ignored. */
  private current?: PgClient;
  private unsubscribe?: () => void;
  private pending?: Set<string>;
  private sending = false;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private retryMs: number;
  /** Notifications of other processes received (for tests and the health page). */
  received = 0;

  private readonly instanceId: string;

  constructor(private readonly options: AppendWakeupsOptions) {
    this.retryMs = options.reconnectMs ?? 500;
    this.instanceId = options.instanceId ?? PROCESS_ID;
  }

  async start(): Promise<void> {
    this.unsubscribe = onAppended(this.options.schema, (types, origin) => {
      if (origin === 'local') this.announce(types);
    });
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.retryTimer);
    const client = this.current;
    this.current = undefined;
    this.listener = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Whether the LISTEN connection is up. */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** Types appended since the last NOTIFY went out; sent with the next one (one in flight at a time). */
  private announce(types: readonly string[]): void {
    const first = !this.pending;
    this.pending ??= new Set();
    for (const type of types) this.pending.add(type);
    if (first && !this.sending) setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = [...(this.pending ?? [])];
    this.pending = undefined;
    if (batch.length === 0) return;
    let payload = JSON.stringify({ i: this.instanceId, t: batch });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) payload = JSON.stringify({ i: this.instanceId, t: [] });
    this.sending = true;
    this.options.pool
      .query('SELECT pg_notify($1, $2)', [appendChannel(this.options.schema), payload])
      .catch(() => undefined)
      .finally(() => {
        this.sending = false;
        if (this.pending) this.flush();
      });
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new PgClient({ ...(this.options.pool.options as PoolConfig), application_name: LISTENER_NAME });
    this.current = client;
    client.on('notification', (message: Notification) => this.onNotification(message));
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${appendChannel(this.options.schema)}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.listener = client;
      this.retryMs = this.options.reconnectMs ?? 500;
    } catch (error) {
      this.options.log?.(`append wake-ups: cannot LISTEN (${(error as Error).message}); processors poll until it is back`);
      this.reconnect(client);
    }
  }

  private onNotification(message: Notification): void {
    try {
      const { i, t } = JSON.parse(message.payload ?? '{}') as { i?: string; t?: unknown };
      if (i === this.instanceId) return;
      this.received++;
      signalAppended(this.options.schema, Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [], 'remote');
    } catch {
      // not ours: ignore
    }
  }

  private reconnect(broken: PgClient): void {
    if (this.stopped || broken !== this.current) return;
    this.current = undefined;
    this.listener = undefined;
    void broken.end().catch(() => undefined);
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.listen();
    }, wait);
    this.retryTimer.unref();
  }
}
