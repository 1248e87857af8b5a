import { randomUUID } from 'node:crypto';
import { fileLockStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { teamManagerProjectionSpec } from '../testing/projection-store';
import { FileLocksProjection } from './file-locks.projection';

let given: Awaited<ReturnType<typeof teamManagerProjectionSpec<FileLocksProjection>>>;
beforeAll(async () => (given = await teamManagerProjectionSpec('filelocks', (store) => new FileLocksProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const lock = (team: string, path: string) => ({ team, path });
const acquired = (team: string, path: string, holder: string, at: string): NewEvent => ({ type: 'filelock.acquired', data: { ...lock(team, path), holder, acquiredAt: at } });
const refreshed = (team: string, path: string, holder: string, at: string): NewEvent => ({ type: 'filelock.refreshed', data: { ...lock(team, path), holder, refreshedAt: at } });
const released = (team: string, path: string, holder: string): NewEvent => ({
  type: 'filelock.released',
  data: { ...lock(team, path), holder, releasedAt: '2025-01-01T10:09:00.000Z', reason: 'unlocked' },
});

const locksOf = (team: string) => ({ sql: 'SELECT path, holder, since, touched_at FROM team_manager.file_locks WHERE team = $1 ORDER BY path', params: [team] });

describe('file-locks projection', () => {
  it('an acquired lock names its holder; a refresh moves only its touch time', async () => {
    const team = `t${randomUUID().slice(0, 8)}`;
    await spec()
      .given(inStream(fileLockStreamId(team, 'src/a.ts'), acquired(team, 'src/a.ts', 'con', '2025-01-01T10:00:00.000Z')))
      .when(inStream(fileLockStreamId(team, 'src/a.ts'), refreshed(team, 'src/a.ts', 'con', '2025-01-01T10:05:00.000Z')))
      .then(locksOf(team), [{ path: 'src/a.ts', holder: 'con', since: new Date('2025-01-01T10:00:00.000Z'), touched_at: new Date('2025-01-01T10:05:00.000Z') }]);
  });

  it('a released lock leaves the table; a stale one broken by another holder changes hands', async () => {
    const team = `t${randomUUID().slice(0, 8)}`;
    await spec()
      .given(
        inStream(fileLockStreamId(team, 'src/a.ts'), acquired(team, 'src/a.ts', 'con', '2025-01-01T10:00:00.000Z')),
        inStream(fileLockStreamId(team, 'src/b.ts'), acquired(team, 'src/b.ts', 'al', '2025-01-01T10:00:00.000Z')),
      )
      .when(
        inStream(fileLockStreamId(team, 'src/a.ts'), released(team, 'src/a.ts', 'con')),
        inStream(fileLockStreamId(team, 'src/b.ts'), acquired(team, 'src/b.ts', 'may', '2025-01-01T11:00:00.000Z')),
      )
      .then(locksOf(team), [{ path: 'src/b.ts', holder: 'may', since: new Date('2025-01-01T11:00:00.000Z') }]);
  });
});
