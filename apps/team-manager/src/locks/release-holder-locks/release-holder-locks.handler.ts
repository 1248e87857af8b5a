import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { releaseHolderLocks } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { FileLockRepository } from '../file-lock.repository';
import { FileLocksProjection } from '../file-locks.projection';

/**
 * `release-holder-locks`: when a teammate's task completes, every lock it holds goes back. The
 * projection says which paths to look at (after catching up); each release is decided against the
 * lock's own stream, so a path another teammate took in the meantime is left alone.
 */
@Controller()
export class ReleaseHolderLocksHandler {
  constructor(
    private readonly locks: FileLockRepository,
    private readonly projection: FileLocksProjection,
  ) {}

  @MessagePattern(releaseHolderLocks)
  async handle(@Payload() req: z.output<typeof releaseHolderLocks.request>, @Ctx() ctx: RequestContext) {
    await this.locks.requireTeam(req.team);
    await this.projection.runner.waitUntilCaughtUp(10_000).catch(() => undefined);
    const released = await this.locks.releaseAllOf(req.team, req.holder, { now: new Date().toISOString(), ctxFor: () => ctx, tolerate: () => true });
    return { released };
  }
}
