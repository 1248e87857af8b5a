import {
  ErrorCodes,
  claimTask,
  completeTask,
  createTask,
  createTasks,
  heartbeatTask,
  listTasks,
  releaseTask,
  type RequestDefinition,
} from '@headspace/contracts';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { LeaseSweeper } from './lease-sweeper';
import { TaskBoardProjection } from './task-board.projection';
import { taskSpecKit } from './task-spec-kit';

let h: TeamManagerHarness;
const { newTeam, board, byId, eventCount } = taskSpecKit(() => h, waitFor);

beforeAll(async () => {
  h = await startTeamManager('tasks');
});
afterAll(async () => {
  await h?.close();
});

describe('Feature 2: Task Management', () => {
  it('Add a single task to the team', async () => {
    const team = await newTeam();
    const res = await h.send(createTask, { team, subject: 'Write the login form', description: 'email + password, with validation' });
    expect(res.taskId).toMatch(/^[0-9a-f-]{36}$/);
    const [task] = await board(team, {}, (t) => t.length === 1);
    expect(task).toMatchObject({
      taskId: res.taskId,
      subject: 'Write the login form',
      description: 'email + password, with validation',
      status: 'pending',
      owner: null,
      dependsOn: [],
      blockedBy: [],
      blocked: false,
      attempts: 0,
      maxAttempts: 3,
    });
  });

  it('Add a task with active form', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'tests', subject: 'Run the tests', activeForm: 'Running the tests' });
    const [task] = await board(team, {}, (t) => t.length === 1);
    expect(task).toMatchObject({ taskId: 'tests', activeForm: 'Running the tests', status: 'pending' });
  });

  it('Add task with metadata', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'm1', subject: 'Audit auth', metadata: { area: 'auth', priority: 2, security: true } });
    const [task] = await board(team, {}, (t) => t.length === 1);
    expect(task.metadata).toEqual({ area: 'auth', priority: 2, security: true });
  });

  it('List all tasks in the team', async () => {
    const team = await newTeam();
    const other = await newTeam('other');
    await h.send(createTasks, { team, tasks: [{ id: 'a', subject: 'A' }, { id: 'b', subject: 'B' }, { id: 'c', subject: 'C', dependsOn: ['a'] }] });
    await h.send(createTask, { team: other, id: 'x', subject: 'not ours' });
    const tasks = await board(team, {}, (t) => t.length === 3);
    expect(tasks.map((t) => t.taskId).sort()).toEqual(['a', 'b', 'c']);
    await board(other, {}, (t) => t.length === 1);
  });

  it('List only pending tasks', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'p1', subject: 'P1' }, { id: 'p2', subject: 'P2' }, { id: 'p3', subject: 'P3' }] });
    await h.send(claimTask, { team, taskId: 'p1', owner: 'con' });
    await h.send(claimTask, { team, taskId: 'p2', owner: 'al' });
    await h.send(completeTask, { team, taskId: 'p2', owner: 'al' });
    const pending = await board(team, { status: 'pending' }, (t) => t.length === 1);
    expect(pending.map((t) => t.taskId)).toEqual(['p3']);
    const all = await board(team, {}, (t) => t.some((x) => x.status === 'completed'));
    expect(all.map((t) => [t.taskId, t.status])).toEqual([['p1', 'claimed'], ['p2', 'completed'], ['p3', 'pending']]);
  });

  it('Claim an available task', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'job', subject: 'Job' });
    const claim = await h.send(claimTask, { team, taskId: 'job', owner: 'agent:default:teammate:7d0c', leaseMs: 60_000 });
    expect(claim).toMatchObject({ taskId: 'job', owner: 'agent:default:teammate:7d0c', attempt: 1, streamVersion: '2' });
    expect(Date.parse(claim.leaseExpiresAt) - Date.now()).toBeGreaterThan(50_000);
    const [task] = await board(team, {}, (t) => t[0]?.status === 'claimed');
    expect(task).toMatchObject({ owner: 'agent:default:teammate:7d0c', attempts: 1 });
  });

  it('Claim task updates active form', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'ui', subject: 'Build the UI', activeForm: 'Building the UI' });
    await h.send(claimTask, { team, taskId: 'ui', owner: 'may', activeForm: 'Building the settings page' });
    const [task] = await board(team, {}, (t) => t[0]?.status === 'claimed');
    expect(task.activeForm).toBe('Building the settings page');
    await h.send(heartbeatTask, { team, taskId: 'ui', owner: 'may', activeForm: 'Styling the settings page' });
    await board(team, {}, (t) => t[0]?.activeForm === 'Styling the settings page');
  });

  it('Attempt to claim already claimed task', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 't', subject: 'T' });
    await h.send(claimTask, { team, taskId: 't', owner: 'con' });
    const before = await eventCount(team);
    const error = await h.sendError(claimTask, { team, taskId: 't', owner: 'al' });
    expect(error.code).toBe(ErrorCodes.taskAlreadyClaimed);
    expect(error.details).toMatchObject({ owner: 'con' });
    expect(await eventCount(team)).toBe(before);
  });

  it('Atomic task claiming prevents race conditions', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: '5', subject: 'Test task', description: 'Test description' });
    const results = await Promise.allSettled([
      h.send(claimTask, { team, taskId: '5', owner: 'agent-fast' }),
      h.send(claimTask, { team, taskId: '5', owner: 'agent-slow' }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason.code).toBe(ErrorCodes.taskAlreadyClaimed);
    const winner = (won[0] as PromiseFulfilledResult<{ owner: string }>).value.owner;
    const [task] = await board(team, {}, (t) => t[0]?.status === 'claimed');
    expect(task.owner).toBe(winner);
    // No partial ownership: exactly one claim event, right after creation.
    const { rows } = await h.db.pool.query(`SELECT type, stream_version FROM team_manager.events WHERE stream_id = $1 ORDER BY stream_version`, [`task-${team}.5`]);
    expect(rows).toEqual([{ type: 'task.created', stream_version: '1' }, { type: 'task.claimed', stream_version: '2' }]);
  });

  it('Mark task as completed', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'done', subject: 'Finish' });
    await h.send(claimTask, { team, taskId: 'done', owner: 'mark' });
    const res = await h.send(completeTask, { team, taskId: 'done', owner: 'mark', result: 'shipped' });
    expect(res.streamVersion).toBe('3');
    const [task] = await board(team, {}, (t) => t[0]?.status === 'completed');
    expect(task.completedAt).not.toBeNull();
    expect(task.leaseExpiresAt).toBeNull();
    expect((await h.sendError(claimTask, { team, taskId: 'done', owner: 'al' })).code).toBe(ErrorCodes.taskAlreadyCompleted);
    expect((await h.sendError(completeTask, { team, taskId: 'done', owner: 'mark' })).code).toBe(ErrorCodes.taskAlreadyCompleted);
  });

  it('Add task with dependencies', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'schema', subject: 'DB schema' });
    await h.send(createTask, { team, id: 'api', subject: 'API', dependsOn: ['schema'] });
    const tasks = await board(team, {}, (t) => t.length === 2);
    expect(byId(tasks, 'api')).toMatchObject({ dependsOn: ['schema'], blockedBy: ['schema'], blocked: true });
    expect(byId(tasks, 'schema')).toMatchObject({ dependsOn: [], blockedBy: [], blocked: false });
    const unknown = await h.sendError(createTask, { team, id: 'ui', subject: 'UI', dependsOn: ['ghost'] });
    expect(unknown).toMatchObject({ code: ErrorCodes.taskUnknownDependency, field: 'dependsOn.0' });
  });

  it('List tasks blocked by dependencies', async () => {
    const team = await newTeam();
    await h.send(createTasks, {
      team,
      tasks: [{ id: 'a', subject: 'A' }, { id: 'b', subject: 'B', dependsOn: ['a'] }, { id: 'c', subject: 'C', dependsOn: ['a', 'b'] }, { id: 'd', subject: 'D' }],
    });
    const blocked = await board(team, { blocked: true }, (t) => t.length === 2);
    expect(blocked.map((t) => [t.taskId, t.blockedBy])).toEqual([['b', ['a']], ['c', ['a', 'b']]]);
    const free = await board(team, { blocked: false }, (t) => t.length === 2);
    expect(free.map((t) => t.taskId)).toEqual(['a', 'd']);
    const error = await h.sendError(claimTask, { team, taskId: 'c', owner: 'con' });
    expect(error).toMatchObject({ code: ErrorCodes.taskBlocked, details: { blockedBy: ['a', 'b'] } });
  });

  it('Auto-unblock tasks when dependency completes', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'a', subject: 'A' }, { id: 'b', subject: 'B', dependsOn: ['a'] }] });
    await h.send(claimTask, { team, taskId: 'a', owner: 'con' });
    expect((await h.sendError(claimTask, { team, taskId: 'b', owner: 'al' })).code).toBe(ErrorCodes.taskBlocked);
    await h.send(completeTask, { team, taskId: 'a', owner: 'con' });
    // Read-your-writes: the claim checks the dependency's stream, not the board.
    await expect(h.send(claimTask, { team, taskId: 'b', owner: 'al' })).resolves.toMatchObject({ owner: 'al' });
    const tasks = await board(team, {}, (t) => byId(t, 'b')?.status === 'claimed');
    expect(byId(tasks, 'b')).toMatchObject({ blockedBy: [], blocked: false });
  });

  it('Complex dependency chain resolution', async () => {
    const team = await newTeam();
    // a ← b ← c, and d needs both a and c (a diamond over a chain).
    await h.send(createTasks, {
      team,
      tasks: [
        { id: 'd', subject: 'D', dependsOn: ['a', 'c'] },
        { id: 'c', subject: 'C', dependsOn: ['b'] },
        { id: 'b', subject: 'B', dependsOn: ['a'] },
        { id: 'a', subject: 'A' },
      ],
    });
    const order: string[] = [];
    for (let step = 0; step < 4; step++) {
      const free = await board(team, { status: 'pending', blocked: false }, (t) => t.length === 1);
      const next = free[0].taskId;
      order.push(next);
      await h.send(claimTask, { team, taskId: next, owner: 'gavin' });
      await h.send(completeTask, { team, taskId: next, owner: 'gavin' });
      await board(team, {}, (t) => byId(t, next)?.status === 'completed');
    }
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('Circular dependency detection and prevention', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'base', subject: 'Base' });
    const before = await eventCount(team);
    const cycle = await h.sendError(createTasks, {
      team,
      tasks: [
        { id: 'x', subject: 'X', dependsOn: ['base', 'z'] },
        { id: 'y', subject: 'Y', dependsOn: ['x'] },
        { id: 'z', subject: 'Z', dependsOn: ['y'] },
      ],
    });
    expect(cycle).toMatchObject({ code: ErrorCodes.taskCircularDependency, field: 'tasks.0.dependsOn', details: { cycle: ['x', 'z', 'y', 'x'] } });
    const self = await h.sendError(createTask, { team, id: 'me', subject: 'Me', dependsOn: ['me'] });
    expect(self).toMatchObject({ code: ErrorCodes.taskCircularDependency, field: 'dependsOn' });
    expect(await eventCount(team)).toBe(before);
    const tasks = await board(team, {}, (t) => t.length > 0);
    expect(tasks.map((t) => t.taskId)).toEqual(['base']);
  });

  it('Task completion removes from blockedBy of dependents', async () => {
    const team = await newTeam();
    await h.send(createTasks, {
      team,
      tasks: [{ id: 'a', subject: 'A' }, { id: 'b', subject: 'B' }, { id: 't', subject: 'T', dependsOn: ['a', 'b'] }, { id: 'u', subject: 'U', dependsOn: ['a'] }],
    });
    await h.send(claimTask, { team, taskId: 'a', owner: 'con' });
    await h.send(completeTask, { team, taskId: 'a', owner: 'con' });
    let tasks = await board(team, {}, (t) => byId(t, 't')?.blockedBy.length === 1);
    expect(byId(tasks, 't')).toMatchObject({ dependsOn: ['a', 'b'], blockedBy: ['b'], blocked: true });
    expect(byId(tasks, 'u')).toMatchObject({ dependsOn: ['a'], blockedBy: [], blocked: false });
    await h.send(claimTask, { team, taskId: 'b', owner: 'al' });
    await h.send(completeTask, { team, taskId: 'b', owner: 'al' });
    tasks = await board(team, {}, (t) => byId(t, 't')?.blockedBy.length === 0);
    expect(byId(tasks, 't')).toMatchObject({ dependsOn: ['a', 'b'], blocked: false });
  });

  it('Query tasks by metadata filters', async () => {
    const team = await newTeam();
    await h.send(createTasks, {
      team,
      tasks: [
        { id: 'auth-1', subject: 'Login', metadata: { area: 'auth', priority: 1 } },
        { id: 'auth-2', subject: 'Logout', metadata: { area: 'auth', priority: 2 } },
        { id: 'db-1', subject: 'Migrations', metadata: { area: 'db', priority: 1, owner_hint: 'con' } },
      ],
    });
    expect((await board(team, { metadata: { area: 'auth' } }, (t) => t.length === 2)).map((t) => t.taskId)).toEqual(['auth-1', 'auth-2']);
    expect((await board(team, { metadata: { priority: 1 } }, (t) => t.length === 2)).map((t) => t.taskId)).toEqual(['auth-1', 'db-1']);
    expect((await board(team, { metadata: { area: 'auth', priority: 2 } }, (t) => t.length === 1)).map((t) => t.taskId)).toEqual(['auth-2']);
    expect(await board(team, { metadata: { area: 'ops' } })).toEqual([]);
    await h.send(claimTask, { team, taskId: 'db-1', owner: 'con' });
    expect((await board(team, { owner: 'con' }, (t) => t.length === 1)).map((t) => t.taskId)).toEqual(['db-1']);
  });

  it('list-tasks by task ids returns just those tasks, with the other filters applied, even past the page limit', async () => {
    const team = await newTeam();
    const ids = Array.from({ length: 30 }, (_, i) => `bulk-${String(i).padStart(2, '0')}`);
    await h.send(createTasks, { team, tasks: ids.map((id) => ({ id, subject: id })) });
    await board(team, {}, (t) => t.length === 30);
    expect((await h.send(listTasks, { team, taskIds: ['bulk-29', 'bulk-03'] })).tasks.map((t) => t.taskId)).toEqual(['bulk-03', 'bulk-29']);
    // A page of 5 would not reach bulk-29 in board order; the id filter does.
    expect((await h.send(listTasks, { team, taskIds: ['bulk-29'], limit: 5 })).tasks.map((t) => t.taskId)).toEqual(['bulk-29']);
    await h.send(claimTask, { team, taskId: 'bulk-29', owner: 'may' });
    await board(team, { owner: 'may' }, (t) => t.length === 1);
    expect((await h.send(listTasks, { team, taskIds: ['bulk-29', 'bulk-03'], status: 'claimed' })).tasks.map((t) => t.taskId)).toEqual(['bulk-29']);
    expect((await h.send(listTasks, { team, taskIds: ['nope'] })).tasks).toEqual([]);
  });
});

describe('Task leases (beyond the seed)', () => {
  it('a claim retried with the same command id answers as the first time', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'r', subject: 'R' });
    const first = await h.send(claimTask, { team, taskId: 'r', owner: 'con' }, { commandId: 'claim-r-1' });
    const again = await h.send(claimTask, { team, taskId: 'r', owner: 'con' }, { commandId: 'claim-r-1' });
    expect(again).toEqual(first);
    expect(await eventCount(team)).toBe(3);
  });

  it('the owner claiming its own task again keeps it and renews the lease; anyone else is still refused', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'mine', subject: 'Mine' });
    const first = await h.send(claimTask, { team, taskId: 'mine', owner: 'con', leaseMs: 60_000 });
    const again = await h.send(claimTask, { team, taskId: 'mine', owner: 'con', leaseMs: 60_000, activeForm: 'Still on it' }, { commandId: 'reclaim-mine-1' });
    expect(again).toMatchObject({ taskId: 'mine', owner: 'con', attempt: 1, streamVersion: '3' });
    expect(Date.parse(again.leaseExpiresAt)).toBeGreaterThanOrEqual(Date.parse(first.leaseExpiresAt));
    // The renewal is retried like any command: same answer, nothing more appended.
    const before = await eventCount(team);
    expect(await h.send(claimTask, { team, taskId: 'mine', owner: 'con', leaseMs: 60_000 }, { commandId: 'reclaim-mine-1' })).toEqual(again);
    expect(await eventCount(team)).toBe(before);
    const error = await h.sendError(claimTask, { team, taskId: 'mine', owner: 'al' });
    expect(error).toMatchObject({ code: ErrorCodes.taskAlreadyClaimed, details: { owner: 'con' } });
    const types = (await h.db.pool.query(`SELECT type FROM team_manager.events WHERE stream_id = $1 ORDER BY stream_version`, [`task-${team}.mine`])).rows.map((r) => r.type);
    expect(types).toEqual(['task.created', 'task.claimed', 'task.heartbeat']);
    const [task] = await board(team, {}, (t) => t[0]?.activeForm === 'Still on it');
    expect(task).toMatchObject({ status: 'claimed', owner: 'con', attempts: 1 });
  });

  it('the owner claiming again amid a crowd of other claimers keeps the task; every other claimer is refused', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'crowd', subject: 'Crowd' });
    await h.send(claimTask, { team, taskId: 'crowd', owner: 'con' });
    const others = (from: number) => Array.from({ length: 6 }, (_, i) => h.send(claimTask, { team, taskId: 'crowd', owner: `agent-${from + i}` }));
    const [before, mine, after] = await Promise.all([
      Promise.allSettled(others(0)),
      h.send(claimTask, { team, taskId: 'crowd', owner: 'con' }),
      Promise.allSettled(others(6)),
    ]);
    expect(mine).toMatchObject({ owner: 'con', attempt: 1 });
    for (const r of [...before, ...after]) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason.code).toBe(ErrorCodes.taskAlreadyClaimed);
    }
  });

  it('an expired lease returns the task to the queue with an attempt counter; a heartbeat keeps it', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'slow', subject: 'Slow' }, { id: 'alive', subject: 'Alive' }] });
    await h.send(claimTask, { team, taskId: 'slow', owner: 'con', leaseMs: 300 });
    const kept = await h.send(claimTask, { team, taskId: 'alive', owner: 'al', leaseMs: 60_000 });
    const [slow] = await board(team, { status: 'pending' }, (t) => byId(t, 'slow')?.attempts === 1);
    expect(slow).toMatchObject({ owner: null, attempts: 1, leaseExpiresAt: null });
    const beat = await h.send(heartbeatTask, { team, taskId: 'alive', owner: 'al', leaseMs: 120_000 });
    expect(Date.parse(beat.leaseExpiresAt)).toBeGreaterThan(Date.parse(kept.leaseExpiresAt));
    // The lapsed owner learns it lost the lease; someone else takes the task as attempt 2.
    expect((await h.sendError(heartbeatTask, { team, taskId: 'slow', owner: 'con' })).code).toBe(ErrorCodes.taskLeaseExpired);
    expect((await h.sendError(completeTask, { team, taskId: 'slow', owner: 'con' })).code).toBe(ErrorCodes.taskLeaseExpired);
    await expect(h.send(claimTask, { team, taskId: 'slow', owner: 'may' })).resolves.toMatchObject({ attempt: 2 });
    const types = (await h.db.pool.query(`SELECT type FROM team_manager.events WHERE stream_id = $1 ORDER BY stream_version`, [`task-${team}.slow`])).rows.map((r) => r.type);
    expect(types).toEqual(['task.created', 'task.claimed', 'task.lease-expired', 'task.claimed']);
  });

  it('a task that fails N times escalates instead of looping', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'flaky', subject: 'Flaky', maxAttempts: 2 });
    await h.send(claimTask, { team, taskId: 'flaky', owner: 'con', leaseMs: 200 });
    await board(team, { status: 'pending' }, (t) => byId(t, 'flaky')?.attempts === 1);
    await h.send(claimTask, { team, taskId: 'flaky', owner: 'al', leaseMs: 200 });
    const [task] = await board(team, { status: 'escalated' }, (t) => t.length === 1);
    expect(task).toMatchObject({ attempts: 2, owner: null, leaseExpiresAt: null });
    expect((await h.sendError(claimTask, { team, taskId: 'flaky', owner: 'may' })).code).toBe(ErrorCodes.taskEscalated);
    const types = (await h.db.pool.query(`SELECT type FROM team_manager.events WHERE stream_id = $1 ORDER BY stream_version`, [`task-${team}.flaky`])).rows.map((r) => r.type);
    expect(types).toEqual(['task.created', 'task.claimed', 'task.lease-expired', 'task.claimed', 'task.lease-expired', 'task.escalated']);
    // Whichever instance holds the sweep lease expired them.
    expect(h.apps.reduce((sum, app) => sum + app.get(LeaseSweeper).expired, 0)).toBeGreaterThanOrEqual(2);
  });

  it('a release records the failed approach, counts as an attempt, and the last allowed one escalates', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'hard', subject: 'Hard', maxAttempts: 2 });
    await h.send(claimTask, { team, taskId: 'hard', owner: 'con' });
    await expect(h.send(releaseTask, { team, taskId: 'hard', owner: 'con', reason: 'monkey-patching the client breaks retries' })).resolves.toMatchObject({
      attempt: 1,
      escalated: false,
    });
    let [task] = await board(team, {}, (t) => t[0]?.failedApproaches.length === 1);
    expect(task).toMatchObject({ status: 'pending', owner: null, attempts: 1 });
    expect(task.failedApproaches[0]).toMatchObject({ attempt: 1, owner: 'con', reason: 'monkey-patching the client breaks retries' });
    await h.send(claimTask, { team, taskId: 'hard', owner: 'al', leaseMs: 60_000 });
    await expect(h.send(releaseTask, { team, taskId: 'hard', owner: 'al', reason: 'the fixture server is down' })).resolves.toMatchObject({ attempt: 2, escalated: true });
    [task] = await board(team, { status: 'escalated' }, (t) => t.length === 1);
    expect(task.failedApproaches.map((f) => f.owner)).toEqual(['con', 'al']);
  });

  it('only the owner heartbeats or completes', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'own', subject: 'Own' });
    expect((await h.sendError(completeTask, { team, taskId: 'own', owner: 'con' })).code).toBe(ErrorCodes.taskNotClaimed);
    await h.send(claimTask, { team, taskId: 'own', owner: 'con' });
    expect((await h.sendError(heartbeatTask, { team, taskId: 'own', owner: 'al' })).code).toBe(ErrorCodes.taskNotOwner);
    expect((await h.sendError(completeTask, { team, taskId: 'own', owner: 'al' })).code).toBe(ErrorCodes.taskNotOwner);
  });
});

describe('Task list (seed 003 Requirement 6)', () => {
  it('subject, description and dependsOn never change; status, owner and activeForm do', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'a', subject: 'A' }, { id: 'b', subject: 'B', description: 'the B work', activeForm: 'Planning B', dependsOn: ['a'] }] });
    const [before] = await board(team, { blocked: true }, (t) => t.length === 1);
    await h.send(claimTask, { team, taskId: 'a', owner: 'con' });
    await h.send(completeTask, { team, taskId: 'a', owner: 'con' });
    await h.send(claimTask, { team, taskId: 'b', owner: 'al', activeForm: 'Building B' });
    const [after] = await board(team, { owner: 'al' }, (t) => t.length === 1);
    expect({ subject: after.subject, description: after.description, dependsOn: after.dependsOn }).toEqual({
      subject: before.subject,
      description: before.description,
      dependsOn: before.dependsOn,
    });
    expect([before.status, before.owner, before.activeForm]).toEqual(['pending', null, 'Planning B']);
    expect([after.status, after.owner, after.activeForm]).toEqual(['claimed', 'al', 'Building B']);
  });

  it('file ownership mapping: tasks declare the files they own and are listed by file', async () => {
    const team = await newTeam();
    await h.send(createTasks, {
      team,
      tasks: [
        { id: 'auth', subject: 'Auth module', files: ['src/auth/**', 'src/session.ts'] },
        { id: 'db', subject: 'Database layer', files: ['src/db/**'] },
      ],
    });
    const owners = await board(team, { file: 'src/session.ts' }, (t) => t.length === 1);
    expect(owners.map((t) => [t.taskId, t.files])).toEqual([['auth', ['src/auth/**', 'src/session.ts']]]);
    expect((await board(team, { file: 'src/db/**' }, (t) => t.length === 1))[0].taskId).toBe('db');
  });
});

describe('Task board projection', () => {
  it('rebuilds from position 0 to the same rows', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'a', subject: 'A', metadata: { k: 'v' } }, { id: 'b', subject: 'B', dependsOn: ['a'] }] });
    await h.send(claimTask, { team, taskId: 'a', owner: 'con', activeForm: 'Doing A' });
    await h.send(completeTask, { team, taskId: 'a', owner: 'con' });
    await h.send(claimTask, { team, taskId: 'b', owner: 'al' });
    await h.send(releaseTask, { team, taskId: 'b', owner: 'al', reason: 'wrong approach' });
    const live = await expectRebuiltEqualsLive(h.apps[0].get(TaskBoardProjection), h.db.pool);
    expect(live.task_board.length).toBeGreaterThanOrEqual(2);
  });
});

describe('Bad input on every task command', () => {
  const oversized = 'x'.repeat(10_001);
  type Case = [name: string, definition: RequestDefinition, body: (team: string) => unknown, code: string, field: string];
  const cases: Case[] = [
    ['create-task: missing subject', createTask, (team) => ({ team }), ErrorCodes.validationFailed, 'subject'],
    ['create-task: wrong type', createTask, (team) => ({ team, subject: 42 }), ErrorCodes.validationFailed, 'subject'],
    ['create-task: unknown team', createTask, () => ({ team: 'no-such-team', subject: 'S' }), ErrorCodes.taskUnknownTeam, 'team'],
    ['create-task: oversized description', createTask, (team) => ({ team, subject: 'S', description: oversized }), ErrorCodes.validationFailed, 'description'],
    ['create-task: oversized subject', createTask, (team) => ({ team, subject: 's'.repeat(201) }), ErrorCodes.validationFailed, 'subject'],
    ['create-task: bad task id', createTask, (team) => ({ team, id: 'a.b', subject: 'S' }), ErrorCodes.validationFailed, 'id'],
    ['create-task: bad team name', createTask, () => ({ team: 'Bad Team', subject: 'S' }), ErrorCodes.validationFailed, 'team'],
    ['create-task: unknown dependency', createTask, (team) => ({ team, subject: 'S', dependsOn: ['nope'] }), ErrorCodes.taskUnknownDependency, 'dependsOn.0'],
    ['create-task: duplicate id', createTask, (team) => ({ team, id: 'exists', subject: 'S' }), ErrorCodes.taskAlreadyExists, 'id'],
    ['create-tasks: missing tasks', createTasks, (team) => ({ team }), ErrorCodes.validationFailed, 'tasks'],
    ['create-tasks: wrong type', createTasks, (team) => ({ team, tasks: [{ subject: 'S', dependsOn: 'a' }] }), ErrorCodes.validationFailed, 'tasks.0.dependsOn'],
    ['create-tasks: unknown team', createTasks, () => ({ team: 'no-such-team', tasks: [{ subject: 'S' }] }), ErrorCodes.taskUnknownTeam, 'team'],
    ['create-tasks: oversized metadata value', createTasks, (team) => ({ team, tasks: [{ subject: 'S', metadata: { k: 'v'.repeat(501) } }] }), ErrorCodes.validationFailed, 'tasks.0.metadata.k'],
    ['claim-task: missing owner', claimTask, (team) => ({ team, taskId: 'exists' }), ErrorCodes.validationFailed, 'owner'],
    ['claim-task: wrong type', claimTask, (team) => ({ team, taskId: 'exists', owner: 'con', leaseMs: 'soon' }), ErrorCodes.validationFailed, 'leaseMs'],
    ['claim-task: unknown task', claimTask, (team) => ({ team, taskId: 'ghost', owner: 'con' }), ErrorCodes.taskNotFound, 'taskId'],
    ['claim-task: unknown team', claimTask, () => ({ team: 'no-such-team', taskId: 'exists', owner: 'con' }), ErrorCodes.taskNotFound, 'taskId'],
    ['claim-task: oversized owner', claimTask, (team) => ({ team, taskId: 'exists', owner: 'o'.repeat(201) }), ErrorCodes.validationFailed, 'owner'],
    ['heartbeat-task: missing task id', heartbeatTask, (team) => ({ team, owner: 'con' }), ErrorCodes.validationFailed, 'taskId'],
    ['heartbeat-task: wrong type', heartbeatTask, (team) => ({ team, taskId: 'exists', owner: 7 }), ErrorCodes.validationFailed, 'owner'],
    ['heartbeat-task: unknown task', heartbeatTask, (team) => ({ team, taskId: 'ghost', owner: 'con' }), ErrorCodes.taskNotFound, 'taskId'],
    ['heartbeat-task: oversized active form', heartbeatTask, (team) => ({ team, taskId: 'exists', owner: 'con', activeForm: 'a'.repeat(201) }), ErrorCodes.validationFailed, 'activeForm'],
    ['complete-task: missing team', completeTask, () => ({ taskId: 'exists', owner: 'con' }), ErrorCodes.validationFailed, 'team'],
    ['complete-task: wrong type', completeTask, (team) => ({ team, taskId: ['exists'], owner: 'con' }), ErrorCodes.validationFailed, 'taskId'],
    ['complete-task: unknown task', completeTask, (team) => ({ team, taskId: 'ghost', owner: 'con' }), ErrorCodes.taskNotFound, 'taskId'],
    ['complete-task: oversized result', completeTask, (team) => ({ team, taskId: 'exists', owner: 'con', result: oversized }), ErrorCodes.validationFailed, 'result'],
    ['create-task: oversized file path', createTask, (team) => ({ team, subject: 'S', files: ['f'.repeat(501)] }), ErrorCodes.validationFailed, 'files.0'],
    ['release-task: missing reason', releaseTask, (team) => ({ team, taskId: 'exists', owner: 'con' }), ErrorCodes.validationFailed, 'reason'],
    ['release-task: wrong type', releaseTask, (team) => ({ team, taskId: 'exists', owner: 'con', reason: false }), ErrorCodes.validationFailed, 'reason'],
    ['release-task: unknown task', releaseTask, (team) => ({ team, taskId: 'ghost', owner: 'con', reason: 'r' }), ErrorCodes.taskNotFound, 'taskId'],
    ['release-task: not claimed', releaseTask, (team) => ({ team, taskId: 'exists', owner: 'con', reason: 'r' }), ErrorCodes.taskNotClaimed, 'taskId'],
    ['release-task: oversized reason', releaseTask, (team) => ({ team, taskId: 'exists', owner: 'con', reason: 'r'.repeat(2_001) }), ErrorCodes.validationFailed, 'reason'],
    ['list-tasks: wrong type', listTasks, (team) => ({ team, blocked: 'yes' }), ErrorCodes.validationFailed, 'blocked'],
    ['list-tasks: empty task ids', listTasks, (team) => ({ team, taskIds: [] }), ErrorCodes.validationFailed, 'taskIds'],
  ];

  it('every command refuses bad input with a typed error naming the field, and appends nothing', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'exists', subject: 'Exists' });
    const before = await eventCount(team);
    for (const [name, definition, body, code, field] of cases) {
      const error = await h.sendError(definition, body(team));
      expect({ name, code: error.code, field: error.field }).toEqual({ name, code, field });
    }
    expect(await eventCount(team)).toBe(before);
    expect(await eventCount('no-such-team')).toBe(0);
  });
});
