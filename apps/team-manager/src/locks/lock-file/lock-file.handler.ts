import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { lockFile } from '@headspace/contracts';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '../../config';
import { FileLockRepository } from '../file-lock.repository';

/**
 * `lock-file`: take, refresh or break-if-stale the lock on one workspace path. A retried request
 * (same command id) appends nothing and gets the first answer back, stale-lock break included.
 */
@Injectable()
export class LockFileHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly locks: FileLockRepository,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, lockFile, async (req, ctx) => {
      const { events, state } = await this.locks.execute(
        { type: 'lock', ...req, now: new Date().toISOString(), staleAfterMs: this.config.FILE_LOCK_STALE_MS },
        ctx,
      );
      if (!state.held) throw new Error('lock decision left the path free');
      const broke = events.find((e) => e.type === 'filelock.acquired' && e.data.brokeStaleLockOf);
      return {
        team: req.team,
        path: req.path,
        holder: state.holder,
        since: state.since,
        ...(broke && broke.type === 'filelock.acquired' ? { brokeStaleLockOf: broke.data.brokeStaleLockOf } : {}),
      };
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}
