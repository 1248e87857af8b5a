import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { listFileLocks } from '@headspace/contracts';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';

/** `list-file-locks`: the team's current locks (optionally one holder's), from the projection. */
@Injectable()
export class ListFileLocksHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, listFileLocks, async (req) => {
      const { rows } = await this.pool.query<{ path: string; holder: string; since: Date }>(
        `SELECT path, holder, since FROM "${this.schema}".file_locks
          WHERE team = $1 AND ($2::text IS NULL OR holder = $2) ORDER BY path`,
        [req.team, req.holder ?? null],
      );
      return { locks: rows.map((r) => ({ path: r.path, holder: r.holder, since: r.since.toISOString() })) };
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}
