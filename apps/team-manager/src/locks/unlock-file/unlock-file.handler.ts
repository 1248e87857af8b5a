import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { unlockFile } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { FileLockRepository } from '../file-lock.repository';

/**
 * `unlock-file`: the holder gives a path back; unlocking a free path is a no-op. A retried request
 * (same command id) appends nothing and answers `released: true` again, even if the path has been
 * locked by someone else since.
 */
@Controller()
export class UnlockFileHandler {
  constructor(private readonly locks: FileLockRepository) {}

  @MessagePattern(unlockFile)
  async handle(@Payload() req: z.output<typeof unlockFile.request>, @Ctx() ctx: RequestContext) {
    const { events } = await this.locks.execute({ type: 'unlock', ...req, now: new Date().toISOString(), reason: 'unlocked' }, ctx);
    return { released: events.length > 0 };
  }
}
