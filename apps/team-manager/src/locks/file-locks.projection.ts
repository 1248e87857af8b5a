import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EventStore, ProcessorRunner, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';
import type { FileLockEvent } from './file-lock.decider';

/** `file_locks`: the current holder of every locked path, for listing and release-on-completion. */
@Injectable()
export class FileLocksProjection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('FileLocksProjection');
  readonly runner: ProcessorRunner;

  constructor(@Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) private readonly schema: string, store: EventStore) {
    this.runner = new ProcessorRunner({
      pool,
      schema,
      name: 'projection:file-locks',
      types: ['filelock.acquired', 'filelock.refreshed', 'filelock.released'],
      decode: (event) => store.validated(event),
      handle: (events, tx) => this.apply(events as Array<RecordedEvent & FileLockEvent>, tx),
      reset: async (tx) => {
        await tx.query(`DELETE FROM "${schema}".file_locks`);
      },
      onError: (error) => this.logger.warn(`file locks projection: ${(error as Error).message}`),
    });
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  private async apply(events: Array<RecordedEvent & FileLockEvent>, tx: PoolClient): Promise<void> {
    const t = `"${this.schema}".file_locks`;
    for (const event of events) {
      const { team, path, holder } = event.data;
      if (event.type === 'filelock.acquired') {
        await tx.query(
          `INSERT INTO ${t} (team, path, holder, since, touched_at) VALUES ($1, $2, $3, $4, $4)
           ON CONFLICT (team, path) DO UPDATE SET holder = excluded.holder, since = excluded.since, touched_at = excluded.touched_at`,
          [team, path, holder, event.data.acquiredAt],
        );
      } else if (event.type === 'filelock.refreshed') {
        await tx.query(`UPDATE ${t} SET touched_at = $3 WHERE team = $1 AND path = $2`, [team, path, event.data.refreshedAt]);
      } else {
        await tx.query(`DELETE FROM ${t} WHERE team = $1 AND path = $2`, [team, path]);
      }
    }
  }
}
