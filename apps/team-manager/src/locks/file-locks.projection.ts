import { Injectable } from '@nestjs/common';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { FileLockEvent } from './file-lock.decider';

/** `file_locks`: the current holder of every locked path, for listing and release-on-completion. */
@Injectable()
export class FileLocksProjection extends Projection<RecordedEvent & FileLockEvent> {
  constructor(store: EventStore) {
    super(store, { name: 'projection:file-locks', types: ['filelock.acquired', 'filelock.refreshed', 'filelock.released'], tables: ['file_locks'] });
  }

  protected async apply(event: RecordedEvent & FileLockEvent, tx: PoolClient): Promise<void> {
    const t = this.qualified('file_locks');
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
