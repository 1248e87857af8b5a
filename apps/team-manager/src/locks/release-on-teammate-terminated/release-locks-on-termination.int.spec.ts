import { randomUUID } from 'node:crypto';
import { createTeam, forceTeamShutdown, listFileLocks, lockFile, spawnTeammate } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../../testing/team-manager-harness';

let tm: TeamManagerHarness;

beforeAll(async () => {
  tm = await startTeamManager('lockstermination');
});
afterAll(() => tm?.close());

const releases = async (team: string) =>
  (await tm.db.pool.query<{ stream_id: string; data: { holder: string } }>(`SELECT stream_id, data FROM team_manager.events WHERE type = 'filelock.released' AND stream_id LIKE $1 ORDER BY global_position`, [`filelock-${team}:%`])).rows;

describe('locks released when their teammate is terminated', () => {
  it('a forced shutdown gives back every lock each terminated teammate holds, by its name or its session key, and no one else’s', async () => {
    const team = `lt-${randomUUID().slice(0, 8)}`;
    await tm.send(createTeam, { name: team });
    const scout = await tm.send(spawnTeammate, { team, name: 'scout', task: 'Map the parser' });
    await tm.send(lockFile, { team, path: 'src/parser.ts', holder: 'scout' });
    await tm.send(lockFile, { team, path: 'src/lexer.ts', holder: scout.sessionKey });
    // The lead is not a teammate: its lock stays.
    await tm.send(lockFile, { team, path: 'README.md', holder: 'team-lead' });
    await waitFor(async () => ((await tm.send(listFileLocks, { team })).locks.length === 3 ? true : undefined), { message: 'the three locks listed' });

    expect(await tm.send(forceTeamShutdown, { team, reason: 'done for today' })).toMatchObject({ status: 'shutdown', unanswered: ['scout'] });

    const left = await waitFor(async () => {
      const { locks } = await tm.send(listFileLocks, { team });
      return locks.length === 1 ? locks : undefined;
    }, { timeoutMs: 15_000, message: 'scout’s locks released' });
    expect(left).toMatchObject([{ path: 'README.md', holder: 'team-lead' }]);
    expect((await releases(team)).map((r) => ({ stream: r.stream_id, holder: r.data.holder }))).toEqual([
      { stream: `filelock-${team}:src/parser.ts`, holder: 'scout' },
      { stream: `filelock-${team}:src/lexer.ts`, holder: scout.sessionKey },
    ]);
  });
});
