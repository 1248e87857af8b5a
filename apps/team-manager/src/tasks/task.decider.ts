import {
  ErrorCodes,
  HeadspaceError,
  type EventData,
  type TaskStatus,
  type taskClaimed,
  type taskCompleted,
  type taskEscalated,
  type taskHeartbeat,
  type taskLeaseExpired,
  type taskReleased,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';
import type { TaskCreatedEvent } from './task-list.decider';

/**
 * One task's stream (`task-<team>.<taskId>`). A claim is a lease: it lasts `leaseMs` unless the owner
 * heartbeats. The lease is lost when its expiry is recorded (`task.lease-expired`, appended by the
 * sweeper at the stream's exact version), so a heartbeat or completion that wins that race keeps it.
 * Every expiry is a failed attempt; when the attempts reach `maxAttempts` the task escalates instead
 * of going back to the queue. A claim by the current owner is not refused: it renews the lease.
 */
export type TaskEvent =
  | TaskCreatedEvent
  | { type: 'task.claimed'; data: EventData<typeof taskClaimed> }
  | { type: 'task.heartbeat'; data: EventData<typeof taskHeartbeat> }
  | { type: 'task.lease-expired'; data: EventData<typeof taskLeaseExpired> }
  | { type: 'task.released'; data: EventData<typeof taskReleased> }
  | { type: 'task.escalated'; data: EventData<typeof taskEscalated> }
  | { type: 'task.completed'; data: EventData<typeof taskCompleted> };

export type TaskState =
  | { exists: false }
  | {
      exists: true;
      team: string;
      taskId: string;
      dependsOn: string[];
      maxAttempts: number;
      status: TaskStatus;
      owner?: string;
      lastExpiredOwner?: string;
      activeForm?: string;
      leaseMs?: number;
      leaseExpiresAt?: string;
      attempts: number;
    };

export interface ClaimTask {
  type: 'claim';
  owner: string;
  activeForm?: string;
  leaseMs: number;
  now: string;
  /** Dependencies not completed yet, read from their own streams by the handler. */
  incompleteDependencies: string[];
}
export interface HeartbeatTask {
  type: 'heartbeat';
  owner: string;
  activeForm?: string;
  leaseMs?: number;
  now: string;
}
export interface CompleteTask {
  type: 'complete';
  owner: string;
  result?: string;
  now: string;
}
export interface ReleaseTask {
  type: 'release';
  owner: string;
  reason: string;
  now: string;
}
export interface ExpireLease {
  type: 'expire-lease';
  now: string;
}
export type TaskCommand = ClaimTask | HeartbeatTask | CompleteTask | ReleaseTask | ExpireLease;

type Existing = Extract<TaskState, { exists: true }>;

/** After a failed attempt: back to the queue, or escalated when the attempts are used up. */
function escalateIfExhausted(task: Existing, now: string): TaskEvent[] {
  if (task.attempts < task.maxAttempts) return [];
  return [
    {
      type: 'task.escalated',
      data: {
        team: task.team,
        taskId: task.taskId,
        attempts: task.attempts,
        reason: `failed ${task.attempts} of ${task.maxAttempts} attempts`,
        escalatedAt: now,
      },
    },
  ];
}

const plus = (now: string, ms: number) => new Date(Date.parse(now) + ms).toISOString();

function existing(state: TaskState): Existing {
  if (!state.exists) throw new HeadspaceError(ErrorCodes.taskNotFound, 'Task not found', { field: 'taskId' });
  return state;
}

function refuseFinished(task: Existing): void {
  if (task.status === 'completed') {
    throw new HeadspaceError(ErrorCodes.taskAlreadyCompleted, `Task "${task.taskId}" is already completed`, { field: 'taskId', details: { taskId: task.taskId } });
  }
  if (task.status === 'escalated') {
    throw new HeadspaceError(ErrorCodes.taskEscalated, `Task "${task.taskId}" was escalated after ${task.attempts} failed attempts`, {
      field: 'taskId',
      details: { taskId: task.taskId, attempts: task.attempts },
    });
  }
}

/** The caller must hold the current lease (heartbeat, complete). */
function requireOwner(task: Existing, owner: string): void {
  refuseFinished(task);
  if (task.status === 'claimed' && task.owner === owner) return;
  if (task.lastExpiredOwner === owner) {
    throw new HeadspaceError(ErrorCodes.taskLeaseExpired, `The lease of "${owner}" on task "${task.taskId}" expired`, {
      field: 'owner',
      details: { taskId: task.taskId, owner },
    });
  }
  if (task.status === 'claimed') {
    throw new HeadspaceError(ErrorCodes.taskNotOwner, `Task "${task.taskId}" is claimed by another member`, {
      field: 'owner',
      details: { taskId: task.taskId, owner: task.owner },
    });
  }
  throw new HeadspaceError(ErrorCodes.taskNotClaimed, `Task "${task.taskId}" is not claimed`, { field: 'taskId', details: { taskId: task.taskId } });
}

/** The owner's lease renewed until `now + leaseMs`. */
const renewal = (task: Existing, owner: string, activeForm: string | undefined, leaseMs: number, now: string): TaskEvent => ({
  type: 'task.heartbeat',
  data: { team: task.team, taskId: task.taskId, owner, ...(activeForm === undefined ? {} : { activeForm }), leaseExpiresAt: plus(now, leaseMs), at: now },
});

/**
 * A pending task whose dependencies are all completed is claimed as its next attempt. The owner
 * claiming again (a retry with a new command id, a restarted agent) keeps its task: the claim renews
 * the lease like a heartbeat, at the stream's exact version, so it holds only if no expiry was
 * recorded first. Anyone else is refused.
 */
function claim(command: ClaimTask, state: TaskState): TaskEvent[] {
  const task = existing(state);
  refuseFinished(task);
  if (task.status === 'claimed') {
    if (task.owner === command.owner) return [renewal(task, command.owner, command.activeForm, command.leaseMs, command.now)];
    throw new HeadspaceError(ErrorCodes.taskAlreadyClaimed, `Task "${task.taskId}" is already claimed`, { field: 'taskId', details: { taskId: task.taskId, owner: task.owner } });
  }
  if (command.incompleteDependencies.length > 0) {
    throw new HeadspaceError(ErrorCodes.taskBlocked, `Task "${task.taskId}" is blocked by ${command.incompleteDependencies.join(', ')}`, {
      field: 'taskId',
      details: { taskId: task.taskId, blockedBy: command.incompleteDependencies },
    });
  }
  return [
    {
      type: 'task.claimed',
      data: {
        team: task.team,
        taskId: task.taskId,
        owner: command.owner,
        ...(command.activeForm === undefined ? {} : { activeForm: command.activeForm }),
        attempt: task.attempts + 1,
        leaseMs: command.leaseMs,
        leaseExpiresAt: plus(command.now, command.leaseMs),
        claimedAt: command.now,
      },
    },
  ];
}

/** Only the holder of the current lease renews it, by its own lease length unless the heartbeat names one. */
function heartbeat(command: HeartbeatTask, state: TaskState): TaskEvent[] {
  const task = existing(state);
  requireOwner(task, command.owner);
  return [renewal(task, command.owner, command.activeForm, command.leaseMs ?? task.leaseMs ?? 0, command.now)];
}

/** Only the holder of the current lease completes the task, for good. */
function complete(command: CompleteTask, state: TaskState): TaskEvent[] {
  const task = existing(state);
  requireOwner(task, command.owner);
  return [
    {
      type: 'task.completed',
      data: { team: task.team, taskId: task.taskId, owner: command.owner, ...(command.result === undefined ? {} : { result: command.result }), completedAt: command.now },
    },
  ];
}

/** Only the holder of the current lease gives the task back: a failed attempt with its reason. */
function release(command: ReleaseTask, state: TaskState): TaskEvent[] {
  const task = existing(state);
  requireOwner(task, command.owner);
  const released: TaskEvent = {
    type: 'task.released',
    data: { team: task.team, taskId: task.taskId, owner: command.owner, attempt: task.attempts, reason: command.reason, releasedAt: command.now },
  };
  return [released, ...escalateIfExhausted(task, command.now)];
}

/** A claimed lease past its expiry is lost (a failed attempt); anything else decides nothing, so the sweeper may ask any time. */
function expireLease(command: ExpireLease, state: TaskState): TaskEvent[] {
  if (!state.exists || state.status !== 'claimed' || !state.leaseExpiresAt || !state.owner) return [];
  if (Date.parse(state.leaseExpiresAt) > Date.parse(command.now)) return [];
  const expired: TaskEvent = {
    type: 'task.lease-expired',
    data: { team: state.team, taskId: state.taskId, owner: state.owner, attempt: state.attempts, leaseExpiresAt: state.leaseExpiresAt, expiredAt: command.now },
  };
  return [expired, ...escalateIfExhausted(state, command.now)];
}

const evolveExisting = evolveByType<Existing, TaskEvent>({
  'task.claimed': (task, { data }) => ({
    ...task,
    status: 'claimed',
    owner: data.owner,
    activeForm: data.activeForm ?? task.activeForm,
    leaseMs: data.leaseMs,
    leaseExpiresAt: data.leaseExpiresAt,
    attempts: data.attempt,
  }),
  'task.heartbeat': (task, { data }) => ({ ...task, activeForm: data.activeForm ?? task.activeForm, leaseExpiresAt: data.leaseExpiresAt }),
  'task.lease-expired': (task, { data }) => ({ ...task, status: 'pending', owner: undefined, lastExpiredOwner: data.owner, leaseExpiresAt: undefined }),
  'task.released': (task) => ({ ...task, status: 'pending', owner: undefined, leaseExpiresAt: undefined }),
  'task.escalated': (task) => ({ ...task, status: 'escalated' }),
  'task.completed': (task) => ({ ...task, status: 'completed', leaseExpiresAt: undefined }),
});

function evolve(state: TaskState, event: TaskEvent): TaskState {
  if (event.type === 'task.created') {
    const d = event.data;
    return {
      exists: true,
      team: d.team,
      taskId: d.taskId,
      dependsOn: d.dependsOn,
      maxAttempts: d.maxAttempts,
      status: 'pending',
      ...(d.activeForm === undefined ? {} : { activeForm: d.activeForm }),
      attempts: 0,
    };
  }
  return state.exists ? evolveExisting(state, event) : state;
}

export const taskDecider: Decider<TaskCommand, TaskState, TaskEvent> = {
  initialState: () => ({ exists: false }),
  decide: decideByType<TaskCommand, TaskState, TaskEvent>({ claim, heartbeat, complete, release, 'expire-lease': expireLease }),
  evolve,
};
