import type { Notification, PoolConfig } from 'pg';
import { PgClient } from './pg-client';

/** The LISTEN connection's application_name (pg_stat_activity). */
export const LISTENER_NAME = 'hs-append-wakeups';

type Handler = (payload: string) => void;

/**
 * One LISTEN connection per process and database, shared by every service schema's wake-ups (in a
 * process running several services, one connection instead of one each: the connection limit is
 * the scarce thing). It LISTENs on every channel someone subscribed to, and after PostgreSQL drops
 * it, connects again with backoff and LISTENs on them all again.
 */
export class ListenerHub {
  private client?: PgClient;
  private current?: PgClient;
  private readonly handlers = new Map<string, Set<Handler>>();
  private retryTimer?: NodeJS.Timeout;
  private retryMs: number;
  private closed = false;

  constructor(
    private readonly config: PoolConfig,
    private readonly options: { reconnectMs: number; log?: (line: string) => void },
  ) {
    this.retryMs = options.reconnectMs;
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  get subscribers(): number {
    let n = 0;
    for (const set of this.handlers.values()) n += set.size;
    return n;
  }

  async subscribe(channel: string, handler: Handler): Promise<void> {
    const set = this.handlers.get(channel) ?? new Set();
    const fresh = set.size === 0;
    set.add(handler);
    this.handlers.set(channel, set);
    if (this.client) {
      if (fresh) await this.quietly(this.client, `LISTEN ${channel}`);
    } else if (!this.current) await this.connect();
  }

  async unsubscribe(channel: string, handler: Handler): Promise<void> {
    const set = this.handlers.get(channel);
    set?.delete(handler);
    if (set && set.size === 0) {
      this.handlers.delete(channel);
      if (this.client) await this.quietly(this.client, `UNLISTEN ${channel}`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.current;
    this.current = undefined;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** A broken connection reports itself through its events (reconnect), not here. */
  private async quietly(client: PgClient, sql: string): Promise<void> {
    try {
      await client.query(sql);
    } catch {
      // see reconnect()
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new PgClient({ ...this.config, application_name: LISTENER_NAME });
    this.current = client;
    client.on('notification', (message: Notification) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
      if (this.current !== client) return;
      this.client = client;
      this.retryMs = this.options.reconnectMs;
    } catch (error) {
      this.options.log?.(`append wake-ups: cannot LISTEN (${(error as Error).message}); processors poll until it is back`);
      this.reconnect(client);
    }
  }

  private reconnect(broken: PgClient): void {
    if (this.closed || broken !== this.current) return;
    this.current = undefined;
    this.client = undefined;
    void broken.end().catch(() => undefined);
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.handlers.size > 0) void this.connect();
    }, wait);
    this.retryTimer.unref();
  }
}

const hubs = new Map<string, { hub: ListenerHub; users: number }>();

/** Where a pool connects: the hub's key (two pools of one database share a connection). */
function keyOf(config: PoolConfig): string {
  return config.connectionString ?? JSON.stringify([config.host, config.port, config.database, config.user]);
}

/** The process's hub for this database, counted; `release` closes it when its last user leaves. */
export function acquireListenerHub(config: PoolConfig, options: { reconnectMs: number; log?: (line: string) => void }): { hub: ListenerHub; release: () => Promise<void> } {
  const key = keyOf(config);
  let entry = hubs.get(key);
  if (!entry) hubs.set(key, (entry = { hub: new ListenerHub(config, options), users: 0 }));
  entry.users++;
  const held = entry;
  let released = false;
  return {
    hub: held.hub,
    release: async () => {
      if (released) return;
      released = true;
      held.users--;
      if (held.users === 0 && hubs.get(key) === held) {
        hubs.delete(key);
        await held.hub.close();
      }
    },
  };
}
