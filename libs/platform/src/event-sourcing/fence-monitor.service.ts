import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { meter } from '@headspace/telemetry';
import type { Pool } from 'pg';
import type { BaseConfig } from '../config/base-config.schema';
import { redactSecrets } from '../logging/redaction';
import { APP_CONFIG, PG_POOL, SERVICE_NAME } from '../platform.tokens';

/** The backend whose transaction id is the oldest still running on the cluster: the xid8 fence stops at it. */
export interface FenceHolder {
  pid: number;
  applicationName: string;
  xactStart: Date;
  ageSeconds: number;
  state: string;
  /** Its current (or last) statement, string literals masked, shortened. */
  query: string;
}

// One series each per service, never per backend: a gauge series once observed stays in the export.
const heldGauge = meter.createObservableGauge('headspace.event_store.fence_held', {
  description: 'Seconds the oldest open transaction on the PostgreSQL cluster has held the xid8 fence (0: none holds a transaction id)',
  unit: 's',
});
const holderGauge = meter.createObservableGauge('headspace.event_store.fence_holder_pid', {
  description: 'PostgreSQL backend pid of the transaction holding the xid8 fence longer than HS_FENCE_WARN_MS (0: none); its log line names it',
});
const looks = new Map<string, { holder?: FenceHolder; warn: boolean }>();
heldGauge.addCallback((result) => {
  for (const [service, look] of looks) result.observe(look.holder?.ageSeconds ?? 0, { service });
});
holderGauge.addCallback((result) => {
  for (const [service, look] of looks) result.observe(look.warn && look.holder ? look.holder.pid : 0, { service });
});

/** Log again about a holder still there after this long (the gauge follows every look). */
const RELOG_MS = 10_000;
const QUERY_CHARS = 200;

/**
 * Every processor reads only below the xid8 fence — the oldest transaction id still running on the
 * whole cluster — so one transaction left open anywhere (a psql session, a stuck migration, another
 * service) holds every read model back and reads-after-writes wait (ARCHITECTURE.md §2, §9). This
 * looks at pg_stat_activity and, past HS_FENCE_WARN_MS, logs a warning naming the backend and
 * exports its age. Seeing other roles' sessions needs pg_read_all_stats (pg_monitor).
 */
@Injectable()
export class FenceMonitor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('FenceMonitor');
  private readonly thresholdMs: number;
  private timer?: NodeJS.Timeout;
  private looking?: Promise<void>;
  private logged?: { pid: number; xactStart: number; at: number };

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_NAME) private readonly service: string,
    @Inject(APP_CONFIG) config: BaseConfig,
  ) {
    this.thresholdMs = config.HS_FENCE_WARN_MS;
  }

  onApplicationBootstrap(): void {
    const every = Math.max(100, Math.min(this.thresholdMs / 2, 5_000));
    this.timer = setInterval(() => {
      this.looking ??= this.check()
        .then(() => undefined, (error: Error) => this.logger.debug(`fence look failed: ${error.message}`))
        .finally(() => (this.looking = undefined));
    }, every);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.looking;
    looks.delete(this.service);
  }

  /** Looks once: the holder when it has held the fence past the threshold (also logged and exported), else undefined. */
  async check(): Promise<FenceHolder | undefined> {
    const holder = await oldestTransaction(this.pool);
    const warn = holder !== undefined && holder.ageSeconds * 1000 >= this.thresholdMs;
    looks.set(this.service, { holder, warn });
    if (!warn) {
      this.logged = undefined;
      return undefined;
    }
    const now = Date.now();
    const same = this.logged && this.logged.pid === holder.pid && this.logged.xactStart === holder.xactStart.getTime();
    if (!same || now - this.logged!.at >= RELOG_MS) {
      this.logged = { pid: holder.pid, xactStart: holder.xactStart.getTime(), at: now };
      this.logger.warn(
        `xid8 fence held for ${holder.ageSeconds.toFixed(1)} s by PostgreSQL backend pid ${holder.pid} ` +
          `(application_name "${holder.applicationName}", ${holder.state}, transaction started ${holder.xactStart.toISOString()}, query: ${holder.query}): ` +
          'read models of every service wait behind it; end that transaction (pg_terminate_backend if it is stuck)',
      );
    }
    return holder;
  }
}

/** The backend running the oldest transaction id (the fence), with its age since its transaction began. */
export async function oldestTransaction(pool: Pool): Promise<FenceHolder | undefined> {
  const { rows } = await pool.query<{ pid: number; application_name: string; xact_start: Date; age_s: number; state: string | null; query: string | null }>(
    `SELECT pid, application_name, xact_start, extract(epoch FROM clock_timestamp() - xact_start)::float8 AS age_s, state, query
       FROM pg_stat_activity
      WHERE backend_xid IS NOT NULL AND xact_start IS NOT NULL
      ORDER BY age(backend_xid) DESC
      LIMIT 1`,
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    pid: row.pid,
    applicationName: row.application_name,
    xactStart: row.xact_start,
    ageSeconds: row.age_s,
    state: row.state ?? 'unknown',
    query: maskQuery(row.query ?? ''),
  };
}

/** Statement text may carry secrets as literals: masked, and cut short. */
function maskQuery(query: string): string {
  const masked = redactSecrets(query.replace(/'(?:[^']|'')*'/g, "'…'")).replace(/\s+/g, ' ').trim();
  return masked.length > QUERY_CHARS ? `${masked.slice(0, QUERY_CHARS)}…` : masked;
}
