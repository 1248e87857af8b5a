import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { findCycle, taskListDecider, type AddTasks, type NewTask, type TaskCreatedEvent } from './task-list.decider';
import { taskDecider, type TaskEvent } from './task.decider';

const now = '2026-01-01T10:00:00.000Z';
const later = '2026-01-01T10:05:00.000Z';
const code = (c: string) => (error: unknown) => error instanceof HeadspaceError && error.code === c;
const task = (taskId: string, dependsOn: string[] = []): NewTask => ({
  taskId,
  subject: `do ${taskId}`,
  description: '',
  dependsOn,
  metadata: {},
  files: [],
  maxAttempts: 2,
});
const add = (...tasks: NewTask[]): AddTasks => ({ type: 'add-tasks', team: 'red', tasks, now, fieldPrefix: (i) => `tasks.${i}` });
const created: TaskCreatedEvent = {
  type: 'task.created',
  data: { team: 'red', taskId: 't1', subject: 'do t1', description: '', dependsOn: [], metadata: {}, files: [], maxAttempts: 2, createdAt: now },
};
const claimed = (owner: string, attempt: number): TaskEvent => ({
  type: 'task.claimed',
  data: { team: 'red', taskId: 't1', owner, attempt, leaseMs: 60_000, leaseExpiresAt: '2026-01-01T10:01:00.000Z', claimedAt: now },
});
const expired = (owner: string, attempt: number): TaskEvent => ({
  type: 'task.lease-expired',
  data: { team: 'red', taskId: 't1', owner, attempt, leaseExpiresAt: '2026-01-01T10:01:00.000Z', expiredAt: later },
});

describe('task list decider', () => {
  it('adds tasks: one list event and one task.created per task', () => {
    const decision = taskListDecider.decideCreation(add(task('a'), task('b', ['a'])), taskListDecider.initialState());
    expect(decision.list).toEqual([{ type: 'tasklist.tasks-added', data: { team: 'red', tasks: [{ taskId: 'a', dependsOn: [] }, { taskId: 'b', dependsOn: ['a'] }], addedAt: now } }]);
    expect(decision.created.map((e) => e.data.taskId)).toEqual(['a', 'b']);
  });

  it('refuses a duplicate id, in the list or in the batch', () => {
    const existing = [{ type: 'tasklist.tasks-added' as const, data: { team: 'red', tasks: [{ taskId: 'a', dependsOn: [] }], addedAt: now } }];
    DeciderSpec.for(taskListDecider).given(existing).when(add(task('a'))).thenThrows(code(ErrorCodes.taskAlreadyExists));
    DeciderSpec.for(taskListDecider).given([]).when(add(task('x'), task('x'))).thenThrows(code(ErrorCodes.taskAlreadyExists));
  });

  it('refuses a dependency on an unknown task, naming the field', () => {
    let error: HeadspaceError | undefined;
    try {
      taskListDecider.decide(add(task('a'), task('b', ['a', 'ghost'])), taskListDecider.initialState());
    } catch (e) {
      error = e as HeadspaceError;
    }
    expect(error?.code).toBe(ErrorCodes.taskUnknownDependency);
    expect(error?.field).toBe('tasks.1.dependsOn.1');
  });

  it('refuses circular dependencies: a self-dependency and a cycle inside a batch', () => {
    DeciderSpec.for(taskListDecider).given([]).when(add(task('a', ['a']))).thenThrows(code(ErrorCodes.taskCircularDependency));
    DeciderSpec.for(taskListDecider).given([]).when(add(task('a', ['c']), task('b', ['a']), task('c', ['b']))).thenThrows(code(ErrorCodes.taskCircularDependency));
    expect(findCycle(new Map([['a', ['c']], ['b', ['a']], ['c', ['b']]]), ['a'])).toEqual(['a', 'c', 'b', 'a']);
    expect(findCycle(new Map([['a', []], ['b', ['a']], ['c', ['a', 'b']]]), ['a', 'b', 'c'])).toBeNull();
  });
});

describe('task decider', () => {
  const claim = (owner: string, incompleteDependencies: string[] = []) =>
    ({ type: 'claim', owner, leaseMs: 60_000, now, incompleteDependencies }) as const;

  it('claims a pending task: attempt 1, lease from now', () => {
    DeciderSpec.for(taskDecider).given([created]).when(claim('con')).then([claimed('con', 1)]);
  });

  it('refuses a second claim (already claimed), a blocked claim, and a claim of nothing', () => {
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1)]).when(claim('al')).thenThrows(code(ErrorCodes.taskAlreadyClaimed));
    DeciderSpec.for(taskDecider).given([created]).when(claim('al', ['t0'])).thenThrows(code(ErrorCodes.taskBlocked));
    DeciderSpec.for(taskDecider).given([]).when(claim('al')).thenThrows(code(ErrorCodes.taskNotFound));
  });

  it('the owner claiming its own task again keeps it: the lease is renewed (a heartbeat), not refused', () => {
    DeciderSpec.for(taskDecider)
      .given([created, claimed('con', 1)])
      .when({ ...claim('con'), now: later })
      .then([{ type: 'task.heartbeat', data: { team: 'red', taskId: 't1', owner: 'con', leaseExpiresAt: '2026-01-01T10:06:00.000Z', at: later } }]);
    DeciderSpec.for(taskDecider)
      .given([created, claimed('con', 1)])
      .when({ ...claim('con'), activeForm: 'Still on it', now: later })
      .then([{ type: 'task.heartbeat', data: { team: 'red', taskId: 't1', owner: 'con', activeForm: 'Still on it', leaseExpiresAt: '2026-01-01T10:06:00.000Z', at: later } }]);
    // Still the same attempt, still con's.
    const state = [created, claimed('con', 1)].reduce(taskDecider.evolve, taskDecider.initialState());
    const after = taskDecider.decide({ ...claim('con'), now: later }, state).reduce(taskDecider.evolve, state);
    expect(after).toMatchObject({ status: 'claimed', owner: 'con', attempts: 1, leaseExpiresAt: '2026-01-01T10:06:00.000Z' });
    // Anyone else is still refused; once the lease expiry is recorded, the old owner's claim is a new attempt.
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1)]).when(claim('al')).thenThrows(code(ErrorCodes.taskAlreadyClaimed));
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1), expired('con', 1)]).when(claim('con')).then([claimed('con', 2)]);
  });

  it('only the owner heartbeats or completes; completion is final', () => {
    const complete = (owner: string) => ({ type: 'complete', owner, now: later }) as const;
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1)]).when(complete('al')).thenThrows(code(ErrorCodes.taskNotOwner));
    DeciderSpec.for(taskDecider).given([created]).when(complete('al')).thenThrows(code(ErrorCodes.taskNotClaimed));
    DeciderSpec.for(taskDecider)
      .given([created, claimed('con', 1)])
      .when(complete('con'))
      .then([{ type: 'task.completed', data: { team: 'red', taskId: 't1', owner: 'con', completedAt: later } }]);
    const done: TaskEvent = { type: 'task.completed', data: { team: 'red', taskId: 't1', owner: 'con', completedAt: later } };
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1), done]).when(claim('al')).thenThrows(code(ErrorCodes.taskAlreadyCompleted));
    DeciderSpec.for(taskDecider)
      .given([created, claimed('con', 1)])
      .when({ type: 'heartbeat', owner: 'con', now: later })
      .then([{ type: 'task.heartbeat', data: { team: 'red', taskId: 't1', owner: 'con', leaseExpiresAt: '2026-01-01T10:06:00.000Z', at: later } }]);
  });

  it('an expired lease returns the task to the queue; the last allowed attempt escalates instead', () => {
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1)]).when({ type: 'expire-lease', now: later }).then([expired('con', 1)]);
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1)]).when({ type: 'expire-lease', now }).then([]);
    DeciderSpec.for(taskDecider)
      .given([created, claimed('con', 1), expired('con', 1), claimed('al', 2)])
      .when({ type: 'expire-lease', now: later })
      .then([
        expired('al', 2),
        { type: 'task.escalated', data: { team: 'red', taskId: 't1', attempts: 2, reason: 'failed 2 of 2 attempts', escalatedAt: later } },
      ]);
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1), expired('con', 1)]).when({ type: 'heartbeat', owner: 'con', now: later }).thenThrows(code(ErrorCodes.taskLeaseExpired));
  });

  it('a release is a failed attempt with its reason; the last allowed one escalates', () => {
    const release = (owner: string) => ({ type: 'release', owner, reason: 'tried X, the API rejects it', now: later }) as const;
    DeciderSpec.for(taskDecider)
      .given([created, claimed('con', 1)])
      .when(release('con'))
      .then([{ type: 'task.released', data: { team: 'red', taskId: 't1', owner: 'con', attempt: 1, reason: 'tried X, the API rejects it', releasedAt: later } }]);
    DeciderSpec.for(taskDecider).given([created, claimed('con', 1)]).when(release('al')).thenThrows(code(ErrorCodes.taskNotOwner));
    const events = taskDecider.decide(release('al'), [created, claimed('con', 1), expired('con', 1), claimed('al', 2)].reduce(taskDecider.evolve, taskDecider.initialState()));
    expect(events.map((e) => e.type)).toEqual(['task.released', 'task.escalated']);
  });
});
