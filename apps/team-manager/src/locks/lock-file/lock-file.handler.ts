import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { lockFile } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG } from '@headspace/platform';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { FileLockRepository } from '../file-lock.repository';

/**
 * `lock-file`: take, refresh or break-if-stale the lock on one workspace path. A retried request
 * (same command id) appends nothing and gets the first answer back, stale-lock break included.
 */
@Controller()
export class LockFileHandler {
  constructor(
    private readonly locks: FileLockRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @MessagePattern(lockFile)
  async handle(@Payload() req: z.output<typeof lockFile.request>, @Ctx() ctx: RequestContext) {
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
  }
}
