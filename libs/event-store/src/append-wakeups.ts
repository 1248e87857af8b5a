import { randomUUID } from 'node:crypto';
import type { Pool, PoolConfig } from 'pg';
import { onAppended, signalAppended } from './append-signal';
import { acquireListenerHub, type ListenerHub } from './append-listener-hub';

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

/** In-process signals reach every processor of the process, so one id per process is enough. */
const PROCESS_ID = randomUUID();

/** The channel of a schema's appends. */
export const appendChannel = (schema: string) => `hs_appended_${schema}`;

/**
 * Cross-process wake-up (ARCHITECTURE.md §2, issue 28 scope 2): committed appends of this process are
 * announced with one coalesced `pg_notify` per event-loop turn, and a dedicated connection LISTENs
 * for other processes' announcements and wakes this process's processors, so a replica sees another
 * replica's appends at once instead of at its next idle poll. The LISTEN connection is the
 * process's one per database (append-listener-hub.ts). The notify is sent after the commit,
 * outside the append's transaction: a NOTIFY inside it would serialise every committing append on
 * PostgreSQL's notification queue lock. Lossy by design: a lost notification (connection down,
 * listener reconnecting) costs only latency, since processors keep polling.
 */
export class AppendWakeups {
  private unsubscribe?: () => void;
  private pending?: Set<string>;
  private sending = false;
  private hub?: { hub: ListenerHub; release: () => Promise<void> };
  private readonly instanceId: string;
  private readonly channel: string;
  private readonly onPayload = (payload: string) => this.onNotification(payload);
  /** Notifications of other processes received (for tests and the health page). */
  received = 0;

  constructor(private readonly options: AppendWakeupsOptions) {
    this.instanceId = options.instanceId ?? PROCESS_ID;
    this.channel = appendChannel(options.schema);
  }

  async start(): Promise<void> {
    this.unsubscribe = onAppended(this.options.schema, (types, origin) => {
      if (origin === 'local') this.announce(types);
    });
    this.hub = acquireListenerHub(this.options.pool.options as PoolConfig, { reconnectMs: this.options.reconnectMs ?? 500, log: this.options.log });
    await this.hub.hub.subscribe(this.channel, this.onPayload);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    const hub = this.hub;
    this.hub = undefined;
    await hub?.hub.unsubscribe(this.channel, this.onPayload);
    await hub?.release();
  }

  /** Whether the LISTEN connection is up. */
  get listening(): boolean {
    return this.hub?.hub.listening ?? false;
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
      .query('SELECT pg_notify($1, $2)', [this.channel, payload])
      .catch(() => undefined)
      .finally(() => {
        this.sending = false;
        if (this.pending) this.flush();
      });
  }

  private onNotification(payload: string): void {
    try {
      const { i, t } = JSON.parse(payload || '{}') as { i?: string; t?: unknown };
      if (i === this.instanceId) return;
      this.received++;
      signalAppended(this.options.schema, Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [], 'remote');
    } catch {
      // not ours: ignore
    }
  }
}
