import {
  ErrorCodes,
  HeadspaceError,
  type EventData,
  type workflowEnded,
  type workflowStarted,
  type workflowStepEnded,
  type workflowStepStarted,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Started = EventData<typeof workflowStarted>;
type StepStarted = EventData<typeof workflowStepStarted>;
type StepEnded = EventData<typeof workflowStepEnded>;
type Ended = EventData<typeof workflowEnded>;

export type WorkflowEvent =
  | { type: 'workflow.started'; data: Started }
  | { type: 'workflow.step-started'; data: StepStarted }
  | { type: 'workflow.step-ended'; data: StepEnded }
  | { type: 'workflow.ended'; data: Ended };

export type WorkflowCommand =
  | ({ type: 'start-workflow'; now: string } & Omit<Started, 'startedAt'>)
  | ({ type: 'start-step'; now: string } & Omit<StepStarted, 'at'>)
  | ({ type: 'end-step'; now: string } & Omit<StepEnded, 'at'>)
  | ({ type: 'end-workflow'; now: string } & Omit<Ended, 'at'>);

/** One step as its attempts left it. */
export interface StepRun {
  attempts: number;
  /** The attempt running now. */
  current?: StepStarted;
  /** The latest attempt started (its ask and prompt). */
  last?: StepStarted;
  /** How the last attempt (or the decision not to run it) ended. */
  ended?: StepEnded;
  firstStartedAt?: string;
}

export interface WorkflowState {
  status: 'none' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  started?: Started;
  steps: Record<string, StepRun>;
  ended?: Ended;
}

const requireWorkflow = (state: WorkflowState, workflowId: string): Started => {
  if (!state.started) throw new HeadspaceError(ErrorCodes.workflowNotFound, `No workflow "${workflowId}"`, { field: 'workflowId' });
  return state.started;
};

const stepOf = (state: WorkflowState, stepId: string) => state.started?.steps.find((s) => s.id === stepId);
const runOf = (state: WorkflowState, stepId: string): StepRun => state.steps[stepId] ?? { attempts: 0 };

/** A step is done when it succeeded or was skipped, or failed with no attempt left (or never ran). */
export function stepFinal(state: WorkflowState, stepId: string): boolean {
  const { ended, current } = runOf(state, stepId);
  if (!ended || current) return false;
  if (ended.status !== 'failed') return true;
  return ended.attempt === 0 || ended.attempt > (stepOf(state, stepId)?.retries ?? 0);
}

/** The ask that runs an attempt of a step (ask ids have no dots; workflow and step ids no double dashes). */
export const workflowAskId = (workflowId: string, stepId: string, attempt: number) => `${workflowId}--${stepId}--a${attempt}`;
export const workflowIdOfAsk = (askId: string): string | undefined => /^([a-z0-9-]+?)--[a-z][a-z0-9-]*--a\d+$/.exec(askId)?.[1];

type Decide<T extends WorkflowCommand['type']> = (command: Extract<WorkflowCommand, { type: T }>, state: WorkflowState) => WorkflowEvent[];

/** A workflow starts once: a retried start records nothing new. */
const start: Decide<'start-workflow'> = ({ type: _t, now, ...data }, state) => (state.status === 'none' ? [{ type: 'workflow.started', data: { ...data, startedAt: now } }] : []);

/** The next attempt of a step that is neither running nor done, while the workflow runs. */
const startStep: Decide<'start-step'> = ({ type: _t, now, ...data }, state) => {
  requireWorkflow(state, data.workflowId);
  const run = runOf(state, data.stepId);
  if (state.status !== 'running' || !stepOf(state, data.stepId) || run.current || stepFinal(state, data.stepId) || data.attempt !== run.attempts + 1) return [];
  return [{ type: 'workflow.step-started', data: { ...data, at: now } }];
};

/** Ends the running attempt named (once), or, as attempt 0, a step that never ran. */
const endStep: Decide<'end-step'> = ({ type: _t, now, ...data }, state) => {
  requireWorkflow(state, data.workflowId);
  const run = runOf(state, data.stepId);
  if (state.status !== 'running' || !stepOf(state, data.stepId)) return [];
  const fits = data.attempt === 0 ? run.attempts === 0 && !run.ended && data.status !== 'succeeded' : run.current?.attempt === data.attempt;
  return fits ? [{ type: 'workflow.step-ended', data: { ...data, at: now } }] : [];
};

/** Succeeded or failed once every step is done; cancelled at any time while running. */
const endWorkflow: Decide<'end-workflow'> = ({ type: _t, now, ...data }, state) => {
  const started = requireWorkflow(state, data.workflowId);
  if (state.status !== 'running') return [];
  if (data.status !== 'cancelled' && !started.steps.every((s) => stepFinal(state, s.id))) return [];
  return [{ type: 'workflow.ended', data: { ...data, at: now } }];
};

export const workflowDecider: Decider<WorkflowCommand, WorkflowState, WorkflowEvent> = {
  initialState: () => ({ status: 'none', steps: {} }),
  decide: decideByType<WorkflowCommand, WorkflowState, WorkflowEvent>({ 'start-workflow': start, 'start-step': startStep, 'end-step': endStep, 'end-workflow': endWorkflow }),
  evolve: evolveByType<WorkflowState, WorkflowEvent>({
    'workflow.started': (state, { data }) => ({ ...state, status: 'running', started: data }),
    'workflow.step-started': (state, { data }) => {
      const run = runOf(state, data.stepId);
      return { ...state, steps: { ...state.steps, [data.stepId]: { ...run, attempts: data.attempt, current: data, last: data, firstStartedAt: run.firstStartedAt ?? data.at } } };
    },
    'workflow.step-ended': (state, { data }) => ({ ...state, steps: { ...state.steps, [data.stepId]: { ...runOf(state, data.stepId), current: undefined, ended: data } } }),
    'workflow.ended': (state, { data }) => ({ ...state, status: data.status, ended: data }),
  }),
};
