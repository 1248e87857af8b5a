import { randomUUID } from 'node:crypto';
import { taskStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { teamManagerProjectionSpec } from '../testing/projection-store';
import { TaskBoardProjection } from './task-board.projection';

let given: Awaited<ReturnType<typeof teamManagerProjectionSpec<TaskBoardProjection>>>;
beforeAll(async () => (given = await teamManagerProjectionSpec('taskboard', (store) => new TaskBoardProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const T0 = '2025-01-01T10:00:00.000Z';
const created = (team: string, taskId: string, dependsOn: string[] = []): NewEvent => ({
  type: 'task.created',
  data: { team, taskId, subject: `Task ${taskId}`, description: '', dependsOn, metadata: { area: 'api' }, files: [], maxAttempts: 3, createdAt: T0 },
});
const claimed = (team: string, taskId: string, owner: string, attempt = 1): NewEvent => ({
  type: 'task.claimed',
  data: { team, taskId, owner, attempt, leaseMs: 60_000, leaseExpiresAt: '2025-01-01T10:02:00.000Z', claimedAt: '2025-01-01T10:01:00.000Z' },
});
const completed = (team: string, taskId: string, owner: string): NewEvent => ({
  type: 'task.completed',
  data: { team, taskId, owner, completedAt: '2025-01-01T10:03:00.000Z' },
});
const released = (team: string, taskId: string, owner: string): NewEvent => ({
  type: 'task.released',
  data: { team, taskId, owner, attempt: 1, reason: 'wrong approach', releasedAt: '2025-01-01T10:04:00.000Z' },
});

const boardOf = (team: string) => ({ sql: 'SELECT * FROM team_manager.task_board WHERE team = $1 ORDER BY task_id', params: [team] });

describe('task-board projection', () => {
  it('a created task is pending, blocked by its unfinished dependencies', async () => {
    const team = `t${randomUUID().slice(0, 8)}`;
    await spec().when(inStream(taskStreamId(team, 'a'), created(team, 'a')), inStream(taskStreamId(team, 'b'), created(team, 'b', ['a']))).then(boardOf(team), [
      { task_id: 'a', status: 'pending', blocked_by: [], metadata: { area: 'api' }, attempts: 0 },
      { task_id: 'b', status: 'pending', depends_on: ['a'], blocked_by: ['a'] },
    ]);
  });

  it('completing a task unblocks its dependents', async () => {
    const team = `t${randomUUID().slice(0, 8)}`;
    await spec()
      .given(inStream(taskStreamId(team, 'a'), created(team, 'a'), claimed(team, 'a', 'con')), inStream(taskStreamId(team, 'b'), created(team, 'b', ['a'])))
      .when(inStream(taskStreamId(team, 'a'), completed(team, 'a', 'con')))
      .then(boardOf(team), [
        { task_id: 'a', status: 'completed', owner: 'con', lease_expires_at: null, completed_at: new Date('2025-01-01T10:03:00.000Z') },
        { task_id: 'b', status: 'pending', blocked_by: [] },
      ]);
  });

  it('a release puts the task back in the queue with the failed approach recorded', async () => {
    const team = `t${randomUUID().slice(0, 8)}`;
    await spec()
      .given(inStream(taskStreamId(team, 'a'), created(team, 'a'), claimed(team, 'a', 'al')))
      .when(inStream(taskStreamId(team, 'a'), released(team, 'a', 'al')))
      .then(boardOf(team), [
        {
          status: 'pending',
          owner: null,
          attempts: 1,
          lease_expires_at: null,
          failed_approaches: [{ attempt: 1, owner: 'al', reason: 'wrong approach', at: '2025-01-01T10:04:00.000Z' }],
        },
      ]);
  });
});
