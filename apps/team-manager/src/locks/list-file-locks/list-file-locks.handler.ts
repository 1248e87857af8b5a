import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listFileLocks } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { FileLockEntry } from '../file-lock.entity';

/** `list-file-locks`: the team's current locks (optionally one holder's), from the projection. */
@Controller()
export class ListFileLocksHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listFileLocks)
  async handle(@Payload() req: z.output<typeof listFileLocks.request>) {
    const rows = await this.reads.rows(FileLockEntry, { team: req.team, ...(req.holder ? { holder: req.holder } : {}) }, { orderBy: [{ path: 'asc' }] });
    return { locks: rows.map(({ path, holder, since }) => ({ path, holder, since: since.toISOString() })) };
  }
}
