import { ErrorCodes, HeadspaceError, type EventData, type taskCreated, type taskListTasksAdded } from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';

/**
 * The team's task list (`tasklist-<team>`): which task ids exist and what each depends on. Creation
 * is decided here so duplicate ids, unknown dependencies and cycles are checked atomically with the
 * list's exact version. `dependsOn` is immutable and may only name tasks that exist already or are
 * created in the same command, so a cycle can only arise inside one batch (or a task naming itself).
 */
export type TaskListEvent = { type: 'tasklist.tasks-added'; data: EventData<typeof taskListTasksAdded> };
export type TaskCreatedEvent = { type: 'task.created'; data: EventData<typeof taskCreated> };

export interface TaskListState {
  /** taskId → dependsOn */
  tasks: Map<string, string[]>;
}

export interface NewTask {
  taskId: string;
  subject: string;
  description: string;
  activeForm?: string;
  dependsOn: string[];
  metadata: Record<string, string | number | boolean>;
  files: string[];
  maxAttempts: number;
}

export interface AddTasks {
  type: 'add-tasks';
  team: string;
  tasks: NewTask[];
  now: string;
  /** Field prefix for errors: `tasks` for a batch, '' for the single-task command. */
  fieldPrefix: (index: number) => string;
}

export interface TaskListDecision {
  list: TaskListEvent[];
  /** One `task.created` per new task, for its own stream. */
  created: TaskCreatedEvent[];
}

const field = (prefix: string, name: string) => (prefix ? `${prefix}.${name}` : name);

/** The first dependency cycle among the new tasks, as a path `[a, b, …, a]`, or null. */
export function findCycle(graph: Map<string, string[]>, start: string[]): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    const s = state.get(node);
    if (s === 'done') return null;
    if (s === 'visiting') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'visiting');
    stack.push(node);
    for (const dep of graph.get(node) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of start) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

export const taskListDecider: Decider<AddTasks, TaskListState, TaskListEvent> & {
  decideCreation(command: AddTasks, state: TaskListState): TaskListDecision;
} = {
  initialState: () => ({ tasks: new Map() }),

  decide(command, state) {
    return taskListDecider.decideCreation(command, state).list;
  },

  decideCreation(command, state) {
    const batch = new Map<string, number>();
    command.tasks.forEach((task, index) => {
      const prefix = command.fieldPrefix(index);
      if (state.tasks.has(task.taskId) || batch.has(task.taskId)) {
        throw new HeadspaceError(ErrorCodes.taskAlreadyExists, `Task "${task.taskId}" already exists in team "${command.team}"`, {
          field: field(prefix, 'id'),
          details: { team: command.team, taskId: task.taskId },
        });
      }
      batch.set(task.taskId, index);
    });
    command.tasks.forEach((task, index) => {
      task.dependsOn.forEach((dep, d) => {
        if (!state.tasks.has(dep) && !batch.has(dep)) {
          throw new HeadspaceError(ErrorCodes.taskUnknownDependency, `Task "${task.taskId}" depends on unknown task "${dep}"`, {
            field: field(command.fieldPrefix(index), `dependsOn.${d}`),
            details: { team: command.team, taskId: task.taskId, dependsOn: dep },
          });
        }
      });
    });
    const graph = new Map(state.tasks);
    for (const task of command.tasks) graph.set(task.taskId, task.dependsOn);
    const cycle = findCycle(graph, command.tasks.map((t) => t.taskId));
    if (cycle) {
      const index = batch.get(cycle[0]) ?? 0;
      throw new HeadspaceError(ErrorCodes.taskCircularDependency, `Circular dependency: ${cycle.join(' → ')}`, {
        field: field(command.fieldPrefix(index), 'dependsOn'),
        details: { team: command.team, cycle },
      });
    }
    return {
      list: [
        {
          type: 'tasklist.tasks-added',
          data: { team: command.team, tasks: command.tasks.map((t) => ({ taskId: t.taskId, dependsOn: t.dependsOn })), addedAt: command.now },
        },
      ],
      created: command.tasks.map((t) => ({
        type: 'task.created',
        data: {
          team: command.team,
          taskId: t.taskId,
          subject: t.subject,
          description: t.description,
          ...(t.activeForm === undefined ? {} : { activeForm: t.activeForm }),
          dependsOn: t.dependsOn,
          metadata: t.metadata,
          files: t.files,
          maxAttempts: t.maxAttempts,
          createdAt: command.now,
        },
      })),
    };
  },

  evolve(state, event) {
    if (event.type !== 'tasklist.tasks-added') return state;
    const tasks = new Map(state.tasks);
    for (const t of event.data.tasks) tasks.set(t.taskId, t.dependsOn);
    return { tasks };
  },
};
