import { randomUUID } from 'node:crypto';
import { createTeam, httpStatusForCode, listFileLocks, lockFile, releaseHolderLocks, unlockFile } from '@headspace/contracts';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { FileLocksProjection } from './file-locks.projection';

let tm: TeamManagerHarness;
const STALE_MS = 1_000;

beforeAll(async () => {
  tm = await startTeamManager('filelocks', { FILE_LOCK_STALE_MS: String(STALE_MS) });
});
afterAll(() => tm?.close());

const teamName = () => `locks-${randomUUID().slice(0, 8)}`;
const team = async () => {
  const name = teamName();
  await tm.send(createTeam, { name });
  return name;
};
const lockEvents = async (teamName: string) =>
  Number((await tm.db.pool.query(`SELECT count(*) FROM team_manager.events WHERE stream_id LIKE $1`, [`filelock-${teamName}:%`])).rows[0].count);
const listed = (teamName: string, holder?: string) => tm.send(listFileLocks, { team: teamName, ...(holder ? { holder } : {}) });

describe('file locks (seed 003 Requirement 6.4)', () => {
  it('a teammate locks a free path and the lock is listed with its holder', async () => {
    const t = await team();
    const result = await tm.send(lockFile, { team: t, path: 'src/auth.ts', holder: 'con' });
    expect(result).toMatchObject({ team: t, path: 'src/auth.ts', holder: 'con' });
    const { locks } = await waitFor(async () => {
      const list = await listed(t);
      return list.locks.length === 1 ? list : undefined;
    });
    expect(locks[0]).toMatchObject({ path: 'src/auth.ts', holder: 'con' });
  });

  it('another teammate is refused with LOCK.HELD naming the holder, and nothing is appended', async () => {
    const t = await team();
    await tm.send(lockFile, { team: t, path: 'src/db.ts', holder: 'con' });
    const before = await lockEvents(t);
    const error = await tm.sendError(lockFile, { team: t, path: 'src/db.ts', holder: 'al' });
    expect(error).toMatchObject({ code: 'LOCK.HELD', field: 'path', details: { holder: 'con' } });
    expect(await lockEvents(t)).toBe(before);
  });

  it('paths are normalised, so two spellings of one file are one lock', async () => {
    const t = await team();
    const first = await tm.send(lockFile, { team: t, path: './src/../src/./api.ts', holder: 'may' });
    expect(first.path).toBe('src/api.ts');
    expect(await tm.sendError(lockFile, { team: t, path: 'src/api.ts', holder: 'mark' })).toMatchObject({ code: 'LOCK.HELD' });
  });

  it('a path outside the workspace is refused with the field named, and nothing is written', async () => {
    const t = await team();
    for (const path of ['../etc/passwd', '/etc/passwd', 'src/../../outside.ts', '.']) {
      expect(await tm.sendError(lockFile, { team: t, path, holder: 'con' })).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'path' });
    }
    expect(await lockEvents(t)).toBe(0);
  });

  it('a stale lock is broken after the configured time and the breaker is told whose it was', async () => {
    const t = await team();
    await tm.send(lockFile, { team: t, path: 'src/slow.ts', holder: 'verner' });
    expect(await tm.sendError(lockFile, { team: t, path: 'src/slow.ts', holder: 'con' })).toMatchObject({ code: 'LOCK.HELD' });
    const taken = await waitFor(
      () => tm.send(lockFile, { team: t, path: 'src/slow.ts', holder: 'con' }).catch(() => undefined),
      { timeoutMs: STALE_MS * 20, intervalMs: 50, message: 'stale lock broken' },
    );
    expect(taken).toMatchObject({ holder: 'con', brokeStaleLockOf: 'verner' });
  });

  it('the holder locking again keeps the lock fresh', async () => {
    const t = await team();
    await tm.send(lockFile, { team: t, path: 'src/kept.ts', holder: 'al' });
    const deadline = Date.now() + STALE_MS * 3;
    while (Date.now() < deadline) {
      await tm.send(lockFile, { team: t, path: 'src/kept.ts', holder: 'al' });
      expect(await tm.sendError(lockFile, { team: t, path: 'src/kept.ts', holder: 'may' })).toMatchObject({ code: 'LOCK.HELD' });
    }
  });

  it('only the holder can unlock; then the path is free for others', async () => {
    const t = await team();
    await tm.send(lockFile, { team: t, path: 'src/x.ts', holder: 'con' });
    expect(await tm.sendError(unlockFile, { team: t, path: 'src/x.ts', holder: 'al' })).toMatchObject({ code: 'LOCK.NOT_HOLDER' });
    expect(await tm.send(unlockFile, { team: t, path: 'src/x.ts', holder: 'con' })).toEqual({ released: true });
    expect(await tm.send(unlockFile, { team: t, path: 'src/x.ts', holder: 'con' })).toEqual({ released: false });
    expect(await tm.send(lockFile, { team: t, path: 'src/x.ts', holder: 'al' })).toMatchObject({ holder: 'al' });
  });

  it("all of a teammate's locks are released when its task completes, and no one else's", async () => {
    const t = await team();
    for (const path of ['a.ts', 'b.ts', 'c.ts']) await tm.send(lockFile, { team: t, path, holder: 'mark' });
    await tm.send(lockFile, { team: t, path: 'd.ts', holder: 'may' });
    const { released } = await tm.send(releaseHolderLocks, { team: t, holder: 'mark' });
    expect(released).toEqual(['a.ts', 'b.ts', 'c.ts']);
    const { locks } = await waitFor(async () => {
      const list = await listed(t);
      return list.locks.length === 1 ? list : undefined;
    });
    expect(locks).toEqual([expect.objectContaining({ path: 'd.ts', holder: 'may' })]);
  });

  it('a lock retried with the same command id appends nothing and answers as the first time', async () => {
    const t = await team();
    const commandId = randomUUID();
    const first = await tm.send(lockFile, { team: t, path: 'src/retry.ts', holder: 'con' }, { commandId });
    const before = await lockEvents(t);
    expect(await tm.send(lockFile, { team: t, path: 'src/retry.ts', holder: 'con' }, { commandId })).toEqual(first);
    expect(await lockEvents(t)).toBe(before);
    // A fresh command by the holder still refreshes (one more event), as before.
    await tm.send(lockFile, { team: t, path: 'src/retry.ts', holder: 'con' });
    expect(await lockEvents(t)).toBe(before + 1);
  });

  it('a lock retried after the path changed hands is answered from the log, not refused with LOCK.HELD', async () => {
    const t = await team();
    const lockId = randomUUID();
    const first = await tm.send(lockFile, { team: t, path: 'src/moved.ts', holder: 'con' }, { commandId: lockId });
    await tm.send(unlockFile, { team: t, path: 'src/moved.ts', holder: 'con' });
    await tm.send(lockFile, { team: t, path: 'src/moved.ts', holder: 'al' });
    const before = await lockEvents(t);
    expect(await tm.send(lockFile, { team: t, path: 'src/moved.ts', holder: 'con' }, { commandId: lockId })).toEqual(first);
    expect(await lockEvents(t)).toBe(before);
    // The replay changed nothing: al still holds it, and a new request by con is refused.
    expect(await tm.sendError(lockFile, { team: t, path: 'src/moved.ts', holder: 'con' })).toMatchObject({ code: 'LOCK.HELD', details: { holder: 'al' } });
  });

  it('an unlock retried with the same command id still says released, even after someone else locked the path', async () => {
    const t = await team();
    const unlockId = randomUUID();
    await tm.send(lockFile, { team: t, path: 'src/u.ts', holder: 'con' });
    expect(await tm.send(unlockFile, { team: t, path: 'src/u.ts', holder: 'con' }, { commandId: unlockId })).toEqual({ released: true });
    const before = await lockEvents(t);
    expect(await tm.send(unlockFile, { team: t, path: 'src/u.ts', holder: 'con' }, { commandId: unlockId })).toEqual({ released: true });
    expect(await lockEvents(t)).toBe(before);
    await tm.send(lockFile, { team: t, path: 'src/u.ts', holder: 'al' });
    expect(await tm.send(unlockFile, { team: t, path: 'src/u.ts', holder: 'con' }, { commandId: unlockId })).toEqual({ released: true });
    expect(await lockEvents(t)).toBe(before + 1);
    expect(await tm.sendError(unlockFile, { team: t, path: 'src/u.ts', holder: 'con' })).toMatchObject({ code: 'LOCK.NOT_HOLDER', details: { holder: 'al' } });
  });

  it('a lock request racing its own retry records one acquisition and both get the same answer', async () => {
    const t = await team();
    const commandId = randomUUID();
    const [a, b] = await Promise.all([
      tm.send(lockFile, { team: t, path: 'src/twin.ts', holder: 'con' }, { commandId }),
      tm.send(lockFile, { team: t, path: 'src/twin.ts', holder: 'con' }, { commandId }),
    ]);
    expect(b).toEqual(a);
    expect(await lockEvents(t)).toBe(1);
  });

  it('concurrent lockers of one path: exactly one holds it, the rest get LOCK.HELD', async () => {
    const t = await team();
    const holders = Array.from({ length: 12 }, (_, i) => `agent-${i}`);
    const results = await Promise.allSettled(holders.map((holder) => tm.send(lockFile, { team: t, path: 'src/hot.ts', holder })));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'LOCK.HELD' });
    expect(await lockEvents(t)).toBe(1);
  });

  it('every lock command for a team that does not exist is refused with LOCK.UNKNOWN_TEAM naming the team, and nothing is written', async () => {
    const t = teamName();
    const before = Number((await tm.db.pool.query('SELECT count(*) FROM team_manager.events')).rows[0].count);
    const refusals = [
      await tm.sendError(lockFile, { team: t, path: 'src/a.ts', holder: 'con' }),
      await tm.sendError(unlockFile, { team: t, path: 'src/a.ts', holder: 'con' }),
      await tm.sendError(releaseHolderLocks, { team: t, holder: 'con' }),
    ];
    for (const error of refusals) expect(error).toMatchObject({ code: 'LOCK.UNKNOWN_TEAM', field: 'team', details: { team: t } });
    expect(httpStatusForCode('LOCK.UNKNOWN_TEAM')).toBe(404);
    expect(Number((await tm.db.pool.query('SELECT count(*) FROM team_manager.events')).rows[0].count)).toBe(before);
  });

  it('bad input on every lock command is a validation error naming the field, with nothing appended', async () => {
    const t = await team();
    const cases: Array<[Parameters<typeof tm.sendError>[0], unknown, string]> = [
      [lockFile, { team: t, path: 'a.ts' }, 'holder'],
      [lockFile, { team: t, path: 42, holder: 'con' }, 'path'],
      [lockFile, { team: 'Not Valid', path: 'a.ts', holder: 'con' }, 'team'],
      [lockFile, { team: t, path: 'x'.repeat(2_000), holder: 'con' }, 'path'],
      [unlockFile, { team: t, holder: 'con' }, 'path'],
      [releaseHolderLocks, { team: t }, 'holder'],
      [listFileLocks, { holder: 'con' }, 'team'],
    ];
    for (const [definition, body, field] of cases) {
      expect(await tm.sendError(definition, body)).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field });
    }
    expect(await lockEvents(t)).toBe(0);
  });

  it('the file-locks projection rebuilt from 0 equals the live one', async () => {
    const live = await expectRebuiltEqualsLive(tm.apps[0].get(FileLocksProjection), tm.db.pool);
    expect(live.file_locks.length).toBeGreaterThan(3);
  });
});
