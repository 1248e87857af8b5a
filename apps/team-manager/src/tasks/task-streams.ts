import { ErrorCodes, HeadspaceError, taskStreamId } from '@headspace/contracts';
import { foldEvents, type EventStore, type LoadedStream, type Queryable, type RecordedEvent } from '@headspace/event-store';
import { z } from 'zod';
import { teamMustExist } from '../teams/shared/team-must-exist';
import { taskDecider, type TaskEvent, type TaskState } from './task.decider';

/**
 * Settings of the task list (validated with the service config, see ../config.ts): default lease, failed attempts before escalation, and the longest the
 * lease sweeper sleeps between looks.
 */
export const taskSettingsSchema = z.object({
  TASK_LEASE_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  TASK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(3),
  TASK_LEASE_SWEEP_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
});
export type TaskSettings = z.output<typeof taskSettingsSchema>;
export const TASK_SETTINGS = Symbol.for('headspace.team-manager.TASK_SETTINGS');
export const taskSettings = (env: Record<string, unknown> = process.env): TaskSettings =>
  taskSettingsSchema.parse(Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('TASK_') && v !== '')));

export interface LoadedTask {
  streamId: string;
  events: Array<RecordedEvent & TaskEvent>;
  state: TaskState;
  /** 0n when the stream does not exist. */
  version: bigint;
  /** Events this command appended already (a retried command is answered from them). */
  prior: Array<RecordedEvent & TaskEvent>;
}

/**
 * One read of the task stream gives both the state and the command's prior result (the same
 * question `priorResult` asks, answered from the rows already in hand: one round trip, not two).
 */
export async function loadTask(store: EventStore, team: string, taskId: string, commandId?: string): Promise<LoadedTask> {
  const streamId = taskStreamId(team, taskId);
  const events = (await store.readStream(streamId)) as Array<RecordedEvent & TaskEvent>;
  return {
    streamId,
    events,
    state: foldEvents(taskDecider, events),
    version: events.length ? events[events.length - 1].streamVersion : 0n,
    prior: commandId ? events.filter((e) => e.metadata.commandId === commandId) : [],
  };
}

export function taskNotFound(team: string, taskId: string): HeadspaceError {
  return new HeadspaceError(ErrorCodes.taskNotFound, `Task "${taskId}" not found in team "${team}"`, {
    field: 'taskId',
    details: { team, taskId },
  });
}

/** The `before` hook of the commands on an existing task: TASK.NOT_FOUND (naming taskId) otherwise, nothing written. */
export const taskMustExist =
  ({ team, taskId }: { team: string; taskId: string }) =>
  ({ state }: LoadedStream<TaskState>): void => {
    if (!state.exists) throw taskNotFound(team, taskId);
  };

export const requireTeam = (store: EventStore, team: string, client?: Queryable): Promise<void> =>
  teamMustExist(store, team, ErrorCodes.taskUnknownTeam, client);
