import { ErrorCodes, HeadspaceError, type EventData, type evalRunCompleted, type evalRunFailed, type evalRunStarted, type evalTaskGraded, type evalTaskStarted } from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';
import { overallScore } from './eval-score';

type Started = EventData<typeof evalRunStarted>;
type TaskStarted = EventData<typeof evalTaskStarted>;
type TaskGraded = EventData<typeof evalTaskGraded>;
type Completed = EventData<typeof evalRunCompleted>;
type Failed = EventData<typeof evalRunFailed>;

export type EvalRunEvent =
  | { type: 'eval.run-started'; data: Started }
  | { type: 'eval.task-started'; data: TaskStarted }
  | { type: 'eval.task-graded'; data: TaskGraded }
  | { type: 'eval.run-completed'; data: Completed }
  | { type: 'eval.run-failed'; data: Failed };

export type EvalRunCommand =
  | ({ type: 'start-eval-run'; now: string } & Omit<Started, 'startedAt'>)
  | ({ type: 'start-task'; now: string } & Omit<TaskStarted, 'at'>)
  | ({ type: 'grade-task'; now: string } & Omit<TaskGraded, 'at'>)
  | { type: 'complete-eval-run'; evalRunId: string; now: string }
  | ({ type: 'fail-eval-run'; now: string } & Omit<Failed, 'at'>);

export interface EvalRunState {
  status: 'none' | 'running' | 'completed' | 'failed';
  started?: Started;
  tasks: Record<string, TaskStarted>;
  graded: Record<string, TaskGraded>;
  completed?: Completed;
  failed?: Failed;
}

const requireRun = (state: EvalRunState, evalRunId: string): Started => {
  if (!state.started) throw new HeadspaceError(ErrorCodes.evalRunNotFound, `No eval run "${evalRunId}"`, { field: 'evalRunId' });
  return state.started;
};

const hasTask = (started: Started, taskId: string) => started.suite.tasks.some((t) => t.id === taskId);

/** The first task of the suite not graded yet: tasks run one after another, in the suite's order. */
export const nextTask = (state: EvalRunState) => state.started?.suite.tasks.find((t) => !state.graded[t.id]);

type Decide<T extends EvalRunCommand['type']> = (command: Extract<EvalRunCommand, { type: T }>, state: EvalRunState) => EvalRunEvent[];

const start: Decide<'start-eval-run'> = ({ type: _t, now, ...data }, state) => (state.status === 'none' ? [{ type: 'eval.run-started', data: { ...data, startedAt: now } }] : []);

/** A task's ask is recorded once, while the run runs. */
const startTask: Decide<'start-task'> = ({ type: _t, now, ...data }, state) => {
  const started = requireRun(state, data.evalRunId);
  if (state.status !== 'running' || state.tasks[data.taskId] || !hasTask(started, data.taskId)) return [];
  return [{ type: 'eval.task-started', data: { ...data, at: now } }];
};

/** A started task is graded once. */
const gradeTask: Decide<'grade-task'> = ({ type: _t, now, ...data }, state) => {
  requireRun(state, data.evalRunId);
  if (state.status !== 'running' || !state.tasks[data.taskId] || state.graded[data.taskId]) return [];
  return [{ type: 'eval.task-graded', data: { ...data, at: now } }];
};

/** Completes once every task is graded, scoring the run from the stream's grades. */
const complete: Decide<'complete-eval-run'> = ({ evalRunId, now }, state) => {
  const started = requireRun(state, evalRunId);
  if (state.status !== 'running' || nextTask(state)) return [];
  const results = started.suite.tasks.map((t) => ({ weight: t.weight, score: state.graded[t.id]!.score, passed: state.graded[t.id]!.passed }));
  return [{ type: 'eval.run-completed', data: { evalRunId, score: overallScore(results), passed: results.filter((r) => r.passed).length, total: results.length, at: now } }];
};

const fail: Decide<'fail-eval-run'> = ({ type: _t, now, ...data }, state) => {
  requireRun(state, data.evalRunId);
  return state.status === 'running' ? [{ type: 'eval.run-failed', data: { ...data, at: now } }] : [];
};

export const evalRunDecider: Decider<EvalRunCommand, EvalRunState, EvalRunEvent> = {
  initialState: () => ({ status: 'none', tasks: {}, graded: {} }),
  decide: decideByType<EvalRunCommand, EvalRunState, EvalRunEvent>({
    'start-eval-run': start,
    'start-task': startTask,
    'grade-task': gradeTask,
    'complete-eval-run': complete,
    'fail-eval-run': fail,
  }),
  evolve: evolveByType<EvalRunState, EvalRunEvent>({
    'eval.run-started': (state, { data }) => ({ ...state, status: 'running', started: data }),
    'eval.task-started': (state, { data }) => ({ ...state, tasks: { ...state.tasks, [data.taskId]: data } }),
    'eval.task-graded': (state, { data }) => ({ ...state, graded: { ...state.graded, [data.taskId]: data } }),
    'eval.run-completed': (state, { data }) => ({ ...state, status: 'completed', completed: data }),
    'eval.run-failed': (state, { data }) => ({ ...state, status: 'failed', failed: data }),
  }),
};
