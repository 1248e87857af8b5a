import { randomUUID } from 'node:crypto';
import { claimTask, completeTask, createTasks, createTeam, listFileLocks, lockFile } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../../testing/team-manager-harness';

let tm: TeamManagerHarness;

beforeAll(async () => {
  tm = await startTeamManager('lockscompletion');
});
afterAll(() => tm?.close());

const releases = async (team: string) =>
  (await tm.db.pool.query<{ stream_id: string; data: { holder: string; reason: string } }>(`SELECT stream_id, data FROM team_manager.events WHERE type = 'filelock.released' AND stream_id LIKE $1 ORDER BY global_position`, [`filelock-${team}:%`])).rows;

describe('locks released when their holder’s task completes (seed 003 Req 6.4)', () => {
  it('releases every lock the owner holds once its task completes, and leaves a teammate’s locks alone', async () => {
    const team = `lc-${randomUUID().slice(0, 8)}`;
    await tm.send(createTeam, { name: team });
    await tm.send(createTasks, { team, tasks: [{ id: 't1', subject: 'Build the parser' }] });
    await tm.send(claimTask, { team, taskId: 't1', owner: 'con' });
    await tm.send(lockFile, { team, path: 'src/parser.ts', holder: 'con' });
    await tm.send(lockFile, { team, path: 'src/lexer.ts', holder: 'con' });
    await tm.send(lockFile, { team, path: 'src/cli.ts', holder: 'al' });
    await waitFor(async () => ((await tm.send(listFileLocks, { team })).locks.length === 3 ? true : undefined), { message: 'the three locks listed' });

    await tm.send(completeTask, { team, taskId: 't1', owner: 'con', result: 'parser done' });

    const left = await waitFor(async () => {
      const { locks } = await tm.send(listFileLocks, { team });
      return locks.length === 1 ? locks : undefined;
    }, { timeoutMs: 15_000, message: 'con’s locks released' });
    expect(left).toMatchObject([{ path: 'src/cli.ts', holder: 'al' }]);
    expect((await releases(team)).map((r) => ({ stream: r.stream_id, holder: r.data.holder, reason: r.data.reason }))).toEqual([
      { stream: `filelock-${team}:src/lexer.ts`, holder: 'con', reason: 'task-completed' },
      { stream: `filelock-${team}:src/parser.ts`, holder: 'con', reason: 'task-completed' },
    ]);
  });
});
