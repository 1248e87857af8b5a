import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import { quoteIdent } from '@headspace/event-store';
import { Inject } from '@nestjs/common';
import type { Pool } from 'pg';
import { opsMetrics } from '../ops-metrics';

const EVERY_MS = 15_000;

/** Refreshes `headspace.ops.groups_open` (groups by state) from the read model: a gauge callback cannot query. */
@Injectable()
export class GroupStateGauge implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    const { rows } = await this.pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM ${quoteIdent(this.schema)}.exception_groups GROUP BY state`);
    opsMetrics.groupsByState(new Map(rows.map((r) => [r.state, r.n])));
  }
}
