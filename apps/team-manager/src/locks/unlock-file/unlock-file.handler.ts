import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { unlockFile } from '@headspace/contracts';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { FileLockRepository } from '../file-lock.repository';

/**
 * `unlock-file`: the holder gives a path back; unlocking a free path is a no-op. A retried request
 * (same command id) appends nothing and answers `released: true` again, even if the path has been
 * locked by someone else since.
 */
@Injectable()
export class UnlockFileHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(private readonly locks: FileLockRepository, @Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, unlockFile, async (req, ctx) => {
      const { events } = await this.locks.execute({ type: 'unlock', ...req, now: new Date().toISOString(), reason: 'unlocked' }, ctx);
      return { released: events.length > 0 };
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}
