import { ErrorCodes, HeadspaceError, type EventData, type LoopStopReason, type loopIterationEnded, type loopIterationStarted, type loopStarted, type loopStopped } from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Started = EventData<typeof loopStarted>;
type IterationStarted = EventData<typeof loopIterationStarted>;
type IterationEnded = EventData<typeof loopIterationEnded>;
type Stopped = EventData<typeof loopStopped>;

export type LoopEvent =
  | { type: 'loop.started'; data: Started }
  | { type: 'loop.iteration-started'; data: IterationStarted }
  | { type: 'loop.iteration-ended'; data: IterationEnded }
  | { type: 'loop.stop-requested'; data: { loopId: string; at: string } }
  | { type: 'loop.stopped'; data: Stopped };

export type LoopCommand =
  | ({ type: 'start-loop'; now: string } & Omit<Started, 'startedAt'>)
  /** At an iteration boundary: `stopFilePresent` is what the process saw in the checkout just before. */
  | ({ type: 'begin-iteration'; now: string; stopFilePresent: boolean } & Omit<IterationStarted, 'at'>)
  | ({ type: 'end-iteration'; now: string } & Omit<IterationEnded, 'at'>)
  | { type: 'request-stop'; loopId: string; now: string }
  | { type: 'fail-loop'; loopId: string; reason: string; now: string };

export interface LoopIteration {
  started: IterationStarted;
  ended?: IterationEnded;
}

export interface LoopState {
  status: 'none' | 'running' | 'succeeded' | 'stopped' | 'failed';
  started?: Started;
  iterations: LoopIteration[];
  stopRequested: boolean;
  stopped?: Stopped;
}

/** The iteration whose session is at work (started, not ended). */
export const currentIteration = (state: LoopState): LoopIteration | undefined => {
  const last = state.iterations.at(-1);
  return last && !last.ended ? last : undefined;
};

const requireLoop = (state: LoopState, loopId: string): Started => {
  if (!state.started) throw new HeadspaceError(ErrorCodes.loopNotFound, `No loop "${loopId}"`, { field: 'loopId' });
  return state.started;
};

const stop = (loopId: string, reason: LoopStopReason, detail: string, now: string, revertedTo?: string): LoopEvent => ({
  type: 'loop.stopped',
  data: { loopId, reason, detail, ...(revertedTo ? { revertedTo } : {}), at: now },
});

/**
 * The safety controls after an iteration, in order: the diff limit (its work was already reverted
 * to the last good checkpoint), the acceptance gate (the check passes; without a check, the agent
 * reports the task completed), the same-error monitor, then the iteration budget. None: continue.
 */
export function stopAfter(state: LoopState, ended: Omit<IterationEnded, 'at'>, baseCommit: string): { reason: LoopStopReason; detail: string; revertedTo?: string } | undefined {
  const s = state.started!;
  const { limits } = s;
  if (ended.diffLines > limits.maxDiffLines)
    return { reason: 'diff-limit', detail: `Iteration ${ended.iteration} changed ${ended.diffLines} lines, over the limit of ${limits.maxDiffLines}; its work was reverted to the last good checkpoint`, revertedTo: baseCommit };
  if (s.check ? ended.check?.passed : ended.agentStatus === 'completed')
    return { reason: 'succeeded', detail: s.check ? `The check passed after iteration ${ended.iteration}` : `The agent reported the task completed in iteration ${ended.iteration} (no check command)` };
  const signatures = [...state.iterations.flatMap((i) => (i.ended ? [i.ended] : [])), ended].map((e) => (e.check && !e.check.passed ? e.check.signature : null));
  const lastN = signatures.slice(-limits.sameErrorLimit);
  if (lastN.length === limits.sameErrorLimit && lastN[0] !== null && lastN.every((sig) => sig === lastN[0]))
    return { reason: 'same-error', detail: `The check failed with the same error (signature ${lastN[0]}) ${limits.sameErrorLimit} iterations in a row` };
  if (ended.iteration >= limits.maxIterations) return { reason: 'max-iterations', detail: `${limits.maxIterations} iterations ran without success` };
  return undefined;
}

type Decide<T extends LoopCommand['type']> = (command: Extract<LoopCommand, { type: T }>, state: LoopState) => LoopEvent[];

/** A loop starts once: a retried start records nothing new. */
const startLoop: Decide<'start-loop'> = ({ type: _t, now, ...data }, state) => (state.status === 'none' ? [{ type: 'loop.started', data: { ...data, startedAt: now } }] : []);

/**
 * The boundary before an iteration: an operator's stop request and the stop file halt the loop here
 * (never mid-iteration); otherwise the next iteration, and only the next, starts.
 */
const beginIteration: Decide<'begin-iteration'> = ({ type: _t, now, stopFilePresent, ...data }, state) => {
  const s = requireLoop(state, data.loopId);
  if (state.status !== 'running' || currentIteration(state) || data.iteration !== state.iterations.length + 1) return [];
  if (state.stopRequested) return [stop(s.loopId, 'stop-requested', `Stopped on request before iteration ${data.iteration}`, now)];
  if (stopFilePresent) return [stop(s.loopId, 'stop-file', `The stop file ${s.limits.stopFile} was present before iteration ${data.iteration}`, now)];
  return [{ type: 'loop.iteration-started', data: { ...data, at: now } }];
};

/** Ends the iteration at work (from its own session only) and applies the safety controls. */
const endIteration: Decide<'end-iteration'> = ({ type: _t, now, ...data }, state) => {
  requireLoop(state, data.loopId);
  const current = currentIteration(state);
  if (state.status !== 'running' || !current || current.started.iteration !== data.iteration || current.started.sessionId !== data.sessionId) return [];
  const verdict = stopAfter(state, data, current.started.baseCommit);
  const ended: LoopEvent = { type: 'loop.iteration-ended', data: { ...data, at: now } };
  return verdict ? [ended, stop(data.loopId, verdict.reason, verdict.detail, now, verdict.revertedTo)] : [ended];
};

/** Recorded once while the loop runs; it takes effect at the next boundary. */
const requestStop: Decide<'request-stop'> = ({ loopId, now }, state) => {
  requireLoop(state, loopId);
  return state.status === 'running' && !state.stopRequested ? [{ type: 'loop.stop-requested', data: { loopId, at: now } }] : [];
};

const failLoop: Decide<'fail-loop'> = ({ loopId, reason, now }, state) => {
  requireLoop(state, loopId);
  return state.status === 'running' ? [stop(loopId, 'failed', reason, now)] : [];
};

const statusOf = (reason: LoopStopReason): LoopState['status'] => (reason === 'succeeded' ? 'succeeded' : reason === 'failed' ? 'failed' : 'stopped');

export const loopDecider: Decider<LoopCommand, LoopState, LoopEvent> = {
  initialState: () => ({ status: 'none', iterations: [], stopRequested: false }),
  decide: decideByType<LoopCommand, LoopState, LoopEvent>({
    'start-loop': startLoop,
    'begin-iteration': beginIteration,
    'end-iteration': endIteration,
    'request-stop': requestStop,
    'fail-loop': failLoop,
  }),
  evolve: evolveByType<LoopState, LoopEvent>({
    'loop.started': (state, { data }) => ({ ...state, status: 'running', started: data }),
    'loop.iteration-started': (state, { data }) => ({ ...state, iterations: [...state.iterations, { started: data }] }),
    'loop.iteration-ended': (state, { data }) => ({ ...state, iterations: state.iterations.map((i) => (i.started.iteration === data.iteration ? { ...i, ended: data } : i)) }),
    'loop.stop-requested': (state) => ({ ...state, stopRequested: true }),
    'loop.stopped': (state, { data }) => ({ ...state, status: statusOf(data.reason), stopped: data }),
  }),
};
