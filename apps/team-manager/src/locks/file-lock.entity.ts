import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A row of `file_locks`: who holds a path of a team now (file-locks.projection.ts; migrations/0006_file_locks.sql). */
export const FileLockEntry = defineEntity({
  name: 'FileLockEntry',
  tableName: 'file_locks',
  properties: {
    team: p.text().primary(),
    path: p.text().primary(),
    holder: p.text(),
    since: p.datetime(),
    touchedAt: p.datetime(),
  },
});
export type FileLockEntry = InferEntity<typeof FileLockEntry>;
