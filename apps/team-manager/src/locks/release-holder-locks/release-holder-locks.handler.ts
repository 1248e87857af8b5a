import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { releaseHolderLocks } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
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
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
  ) {}

  @MessagePattern(releaseHolderLocks)
  async handle(@Payload() req: z.output<typeof releaseHolderLocks.request>, @Ctx() ctx: RequestContext) {
    await this.locks.requireTeam(req.team);
    await this.projection.runner.waitUntilCaughtUp(10_000).catch(() => undefined);
    const { rows } = await this.pool.query<{ path: string }>(
      `SELECT path FROM "${this.schema}".file_locks WHERE team = $1 AND holder = $2 ORDER BY path`,
      [req.team, req.holder],
    );
    const released: string[] = [];
    for (const { path } of rows) {
      const { events } = await this.locks
        .execute({ type: 'unlock', team: req.team, path, holder: req.holder, now: new Date().toISOString(), reason: 'task-completed' }, ctx)
        .catch(() => ({ events: [] }));
      if (events.length > 0) released.push(path);
    }
    return { released };
  }
}
