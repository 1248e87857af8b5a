import { createTask, createTasks, type HeadspaceError } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../../testing/team-manager-harness';
import { taskSpecKit } from '../task-spec-kit';

/**
 * Independent creations on one team's task list are not conflicts: however many arrive at once, on
 * however many replicas, each one lands, once. Two instances serve the subject, so the creators of a
 * team race across processes as well as inside one.
 */
let h: TeamManagerHarness;
const { newTeam, board } = taskSpecKit(() => h, waitFor);
const slow = { timeoutMs: 60_000 };

beforeAll(async () => {
  h = await startTeamManager('create-race');
  await h.addInstance();
});
afterAll(async () => {
  await h?.close();
});

/** Every command's outcome: its result, or the code of the error it failed with. */
const settle = <T>(sends: Array<Promise<T>>) =>
  Promise.all(sends.map((p) => p.then((result) => ({ result, code: undefined }), (e: HeadspaceError) => ({ result: undefined, code: e.code }))));

/** The team's task streams and the task-list stream's version, read from the log. */
async function logOf(team: string) {
  const { rows } = await h.db.pool.query<{ stream_id: string; n: string }>(
    `SELECT stream_id, count(*) AS n FROM team_manager.events WHERE stream_id LIKE $1 AND type = 'task.created' GROUP BY stream_id`,
    [`task-${team}.%`],
  );
  const list = await h.db.pool.query<{ version: string }>(`SELECT version FROM team_manager.streams WHERE stream_id = $1`, [`tasklist-${team}`]);
  return { created: rows.map((r) => ({ taskId: r.stream_id.slice(`task-${team}.`.length), events: Number(r.n) })), listVersion: list.rows[0]?.version };
}

describe('concurrent task creation on one team', () => {
  it('50 creations at once all succeed and each task exists exactly once', async () => {
    const team = await newTeam();
    const outcomes = await settle(Array.from({ length: 50 }, (_, i) => h.send(createTask, { team, id: `t${i}`, subject: `Task ${i}` }, slow)));
    expect(outcomes.filter((o) => o.code !== undefined)).toEqual([]);
    expect(new Set(outcomes.map((o) => o.result?.streamVersion)).size).toBe(50);
    const log = await logOf(team);
    expect(log.listVersion).toBe('50');
    expect(log.created).toHaveLength(50);
    expect(log.created.every((t) => t.events === 1)).toBe(true);
    expect((await board(team, {}, (tasks) => tasks.length === 50)).map((t) => t.taskId).sort()).toEqual(log.created.map((t) => t.taskId).sort());
  });

  it('40 agents adding a batch each at once lose no task', async () => {
    const team = await newTeam();
    const outcomes = await settle(
      Array.from({ length: 40 }, (_, a) =>
        h.send(createTasks, { team, tasks: [0, 1, 2].map((k) => ({ subject: `agent ${a} step ${k}` })) }, slow),
      ),
    );
    expect(outcomes.filter((o) => o.code !== undefined)).toEqual([]);
    const ids = outcomes.flatMap((o) => o.result!.taskIds);
    expect(new Set(ids).size).toBe(120);
    const log = await logOf(team);
    expect(log.created.map((t) => t.taskId).sort()).toEqual([...ids].sort());
    expect(log.listVersion).toBe('40');
  });

  it('batches whose tasks depend on shared tasks all land, with their dependencies', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'spec', subject: 'Spec' }, { id: 'schema', subject: 'Schema' }] });
    const outcomes = await settle(
      Array.from({ length: 30 }, (_, b) =>
        h.send(
          createTasks,
          {
            team,
            tasks: [
              { id: `build-${b}`, subject: `Build ${b}`, dependsOn: ['spec'] },
              { id: `test-${b}`, subject: `Test ${b}`, dependsOn: [`build-${b}`, 'schema'] },
            ],
          },
          slow,
        ),
      ),
    );
    expect(outcomes.filter((o) => o.code !== undefined)).toEqual([]);
    const tasks = await board(team, {}, (t) => t.length === 62);
    for (let b = 0; b < 30; b++) {
      expect(tasks.find((t) => t.taskId === `test-${b}`)?.blockedBy.sort()).toEqual([`build-${b}`, 'schema']);
    }
    expect((await logOf(team)).created).toHaveLength(62);
  });

  it('one command id sent many times at once, amid other creators, creates its task once and answers each time alike', async () => {
    const team = await newTeam();
    const commandId = randomUUID();
    const outcomes = await settle([
      ...Array.from({ length: 10 }, () => h.send(createTask, { team, subject: 'Retried' }, { ...slow, commandId })),
      ...Array.from({ length: 20 }, (_, i) => h.send(createTask, { team, id: `other-${i}`, subject: `Other ${i}` }, slow)),
    ]);
    expect(outcomes.filter((o) => o.code !== undefined)).toEqual([]);
    const retried = outcomes.slice(0, 10).map((o) => o.result);
    expect(new Set(retried.map((r) => JSON.stringify(r))).size).toBe(1);
    const log = await logOf(team);
    expect(log.created).toHaveLength(21);
    expect(log.listVersion).toBe('21');
  });
});
