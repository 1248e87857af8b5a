import type { EventData, QaFailure, SessionRouting, RunSpec, RunStreamEvent, RunTask, escalationAnswers, escalationLevels, runPhases, runSessionPurposes, runStarted, runTasksAdded } from '@headspace/contracts';

export type RunEvent = RunStreamEvent;
export type RunPhase = (typeof runPhases)[number];
export type SessionPurpose = (typeof runSessionPurposes)[number];
export type EscalationLevel = (typeof escalationLevels)[number];
export type EscalationAnswer = (typeof escalationAnswers)[number];
export type Started = EventData<typeof runStarted>;
export type AddedTask = EventData<typeof runTasksAdded>['tasks'][number];

export interface RunTaskState {
  task: AddedTask;
  /** `conflicted`: done, but its merge conflicted; the conflict task `resolvedBy` brings the work in. */
  status: 'pending' | 'running' | 'done' | 'merged' | 'conflicted' | 'failed' | 'skipped';
  persona?: string;
  attempts: number;
  /** Attempts allowed; an escalation answered "retry" grants one more. */
  maxAttempts: number;
  files: string[];
  summary?: string;
  resolvedBy?: string;
  teamTaskId?: string;
  /** Guidance from escalation answers, given to the next attempt. */
  notes: string[];
  /** Sessions of the current attempt that handed off; the next one continues from `handoff`. */
  handoffs?: number;
  handoff?: string;
  /** Times it merged into the run branch (a fix run's check can send a merged task back). */
  merges?: number;
  /** The files its last merge brought into the run branch. */
  mergedFiles?: string[];
}

/** A fix run's run of its test command on the run branch (`run.regression-checked`). */
export interface RegressionCheck {
  stage: 'before-fix' | 'after-fix';
  ok: boolean;
  exitCode: number;
  commit: string;
  command: string;
  testFiles: string[];
  output: string;
  at: string;
}

export interface RunSessionState {
  sessionId: string;
  purpose: SessionPurpose;
  persona: string;
  taskKey?: string;
  round?: number;
  escalationId?: string;
  attempt: number;
  leaseId?: string;
  released: boolean;
  ended: boolean;
  exitReason?: string;
  /** The model and effort it was started on and why (none: recorded before routing, the purpose's default). */
  routing?: SessionRouting;
  /** The run's custom agent, when this session runs as it. */
  agent?: string;
}

export interface QueuedSession {
  sessionId: string;
  purpose: SessionPurpose;
  taskKey?: string;
  pool: string;
  requestId: string;
  position: number;
}

export interface EscalationState {
  escalationId: string;
  from: string;
  to: EscalationLevel;
  subject: string;
  details: string;
  about?: string;
  answer?: EscalationAnswer;
  note?: string;
}

export interface RunState {
  status: 'none' | 'active' | 'completed' | 'failed';
  started?: Started;
  phase: RunPhase;
  workspace?: { dir: string; branch: string; baseCommit: string };
  sessions: Record<string, RunSessionState>;
  queued: Record<string, QueuedSession>;
  workshopRounds: number;
  pendingQuestions?: { round: number; questions: string[] };
  answers: string[];
  spec?: RunSpec;
  specAccepted: boolean;
  /** Gavin's drafts so far (v2 rejections make more). */
  drafts: number;
  rejections: string[];
  proposal?: { tasks: RunTask[]; approvalId?: string };
  tasks: Record<string, RunTaskState>;
  taskOrder: string[];
  qaRounds: number;
  maxQaRounds: number;
  qaReports: Array<{ round: number; passed: boolean; failures: QaFailure[]; merged: boolean }>;
  review?: { verdict: 'done' | 'issues'; report: string; issues: string[] };
  escalations: Record<string, EscalationState>;
  /** Fix runs only, oldest first. */
  regressionChecks: RegressionCheck[];
  result?: { resultDir: string; branch: string; headCommit: string; verdict: 'done' | 'issues' };
  failure?: string;
  startedAt?: string;
  endedAt?: string;
}

export const qaMergeKey = (round: number) => `qa-r${round}`;
export const qaRoundOfKey = (key: string): number | undefined => {
  const m = /^qa-r(\d+)$/.exec(key);
  return m ? Number(m[1]) : undefined;
};

export const initialRunState = (): RunState => ({
  status: 'none',
  phase: 'workshop',
  sessions: {},
  queued: {},
  workshopRounds: 0,
  answers: [],
  specAccepted: false,
  drafts: 0,
  rejections: [],
  tasks: {},
  taskOrder: [],
  qaRounds: 0,
  maxQaRounds: 0,
  qaReports: [],
  escalations: {},
  regressionChecks: [],
});

/** A fix run's regression task (Verner's failing test), undefined on other runs. */
export const regressionKeyOf = (state: RunState): string | undefined => state.started?.fix?.regressionTaskKey;
const lastCheck = (state: RunState, stage: RegressionCheck['stage']) => state.regressionChecks.findLast((c) => c.stage === stage);
/** The regression test made the test command fail on the run branch: the bug is reproduced. */
export const reproduced = (state: RunState): boolean => lastCheck(state, 'before-fix')?.ok === true;
/** The test command passed on the run branch after the fix. */
export const fixVerified = (state: RunState): boolean => lastCheck(state, 'after-fix')?.ok === true;

/** A task's work is in the run branch: merged, or conflicted with its conflict task merged. */
function landed(state: RunState, key: string, seen = new Set<string>()): boolean {
  const t = state.tasks[key];
  if (!t || seen.has(key)) return false;
  if (t.status === 'merged') return true;
  return t.status === 'conflicted' && t.resolvedBy !== undefined && isSettled(state, t.resolvedBy, seen.add(key));
}

/**
 * The check a fix run owes now: before-fix once the regression test landed (until one reproduces
 * the bug), after-fix once every task settled (until one passes). Each stage's check is due again
 * only after the work it sent back has landed again.
 */
export function dueRegressionCheck(state: RunState): RegressionCheck['stage'] | undefined {
  const key = regressionKeyOf(state);
  if (!key || state.status !== 'active') return undefined;
  if (!reproduced(state)) return landed(state, key) ? 'before-fix' : undefined;
  if (!fixVerified(state) && state.taskOrder.every((k) => isSettled(state, k))) return 'after-fix';
  return undefined;
}

/**
 * A task no longer holds its dependants back: merged, skipped, or conflicted with its conflict task
 * settled. A fix run's regression task holds them back until its test reproduced the bug.
 */
export function isSettled(state: RunState, key: string, seen = new Set<string>()): boolean {
  const t = state.tasks[key];
  if (!t || seen.has(key)) return false;
  if (key === regressionKeyOf(state) && !reproduced(state)) return false;
  if (t.status === 'skipped') return true;
  return landed(state, key, seen);
}

/** The phase is never stored on its own: it follows from what the run has recorded. */
export function phaseOf(state: RunState): RunPhase {
  if (state.status === 'completed') return 'completed';
  if (state.status === 'failed') return 'failed';
  if (!state.spec) return 'workshop';
  if (!state.specAccepted) return 'spec-review';
  if (state.taskOrder.length === 0) return state.proposal ? 'tasks-review' : 'decomposition';
  if (state.taskOrder.some((k) => !isSettled(state, k))) return 'execution';
  // A fix run has no QA round or review: its checks of the test command replace them.
  if (state.started?.fix) return 'execution';
  if (!state.qaReports.some((r) => r.passed)) return 'qa';
  return 'review';
}

export function evolveRun(state: RunState, event: RunEvent): RunState {
  const next = apply(state, event);
  return { ...next, phase: phaseOf(next) };
}

const withTask = (state: RunState, key: string, patch: (t: RunTaskState) => Partial<RunTaskState>): RunState => {
  const t = state.tasks[key];
  return t ? { ...state, tasks: { ...state.tasks, [key]: { ...t, ...patch(t) } } } : state;
};

const withQaReport = (state: RunState, round: number, patch: Partial<RunState['qaReports'][number]>): RunState => ({
  ...state,
  qaReports: state.qaReports.map((r) => (r.round === round ? { ...r, ...patch } : r)),
});

function apply(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'run.started':
      return { ...state, status: 'active', started: event.data, startedAt: event.data.startedAt, maxQaRounds: event.data.limits.maxQaRounds };
    case 'run.workspace-prepared':
      return { ...state, workspace: { dir: event.data.dir, branch: event.data.branch, baseCommit: event.data.baseCommit } };
    case 'run.persona-queued': {
      const d = event.data;
      const queued: QueuedSession = { sessionId: d.sessionId, purpose: d.purpose, pool: d.pool, requestId: d.requestId, position: d.position, ...(d.taskKey ? { taskKey: d.taskKey } : {}) };
      return { ...state, queued: { ...state.queued, [d.sessionId]: queued } };
    }
    case 'run.session-started':
      return sessionStarted(state, event.data);
    case 'run.persona-released': {
      const s = state.sessions[event.data.sessionId];
      return s ? { ...state, sessions: { ...state.sessions, [s.sessionId]: { ...s, released: true } } } : state;
    }
    case 'run.session-ended': {
      const s = state.sessions[event.data.sessionId];
      return s ? { ...state, sessions: { ...state.sessions, [s.sessionId]: { ...s, ended: true, exitReason: event.data.exitReason } } } : state;
    }
    case 'run.questions-asked':
      return { ...state, pendingQuestions: { round: event.data.round, questions: event.data.questions } };
    case 'run.questions-answered':
      return { ...state, pendingQuestions: undefined, answers: [...state.answers, event.data.answer] };
    case 'run.spec-drafted':
      return { ...state, spec: event.data.spec };
    case 'run.spec-accepted':
      return { ...state, specAccepted: true };
    case 'run.tasks-proposed':
      return { ...state, proposal: { tasks: event.data.tasks, ...(event.data.approvalId ? { approvalId: event.data.approvalId } : {}) } };
    case 'run.tasks-approved':
      return { ...state, proposal: undefined };
    case 'run.tasks-rejected':
      return { ...state, proposal: undefined, rejections: [...state.rejections, event.data.reason] };
    case 'run.tasks-added':
      return tasksAdded(state, event.data.tasks);
    case 'run.tasks-created': {
      let next = state;
      for (const { key, taskId } of event.data.tasks) next = withTask(next, key, () => ({ teamTaskId: taskId }));
      return next;
    }
    case 'run.task-finished': {
      const d = event.data;
      return withTask(state, d.taskKey, (t) => {
        if (d.outcome === 'handed-off') return { status: 'pending', files: d.files, summary: d.summary, handoffs: (t.handoffs ?? 0) + 1, handoff: d.summary };
        const status: RunTaskState['status'] = d.outcome === 'completed' ? 'done' : d.attempt >= t.maxAttempts ? 'failed' : 'pending';
        return { status, files: d.files, summary: d.summary, handoffs: 0, handoff: undefined };
      });
    }
    case 'run.task-merged': {
      const round = qaRoundOfKey(event.data.taskKey);
      if (round !== undefined) return withQaReport(state, round, { merged: true });
      return withTask(state, event.data.taskKey, (t) => ({ status: 'merged', merges: (t.merges ?? 0) + 1, mergedFiles: event.data.files }));
    }
    case 'run.task-conflicted': {
      const round = qaRoundOfKey(event.data.taskKey);
      if (round !== undefined) return withQaReport(state, round, { merged: true });
      return withTask(state, event.data.taskKey, () => ({ status: 'conflicted', resolvedBy: event.data.conflictTaskKey }));
    }
    case 'run.qa-reported':
      return { ...state, qaReports: [...state.qaReports, { round: event.data.round, passed: event.data.passed, failures: event.data.failures, merged: false }] };
    case 'run.review-reported':
      return { ...state, review: { verdict: event.data.verdict, report: event.data.report, issues: event.data.issues } };
    case 'run.escalated': {
      const { runId: _r, at: _a, ...e } = event.data;
      return { ...state, escalations: { ...state.escalations, [e.escalationId]: e } };
    }
    case 'run.escalation-answered':
      return escalationAnswered(state, event.data.escalationId, event.data.answer, event.data.note);
    case 'run.regression-checked':
      return regressionChecked(state, event.data);
    case 'run.completed':
      return {
        ...state,
        status: 'completed',
        result: { resultDir: event.data.resultDir, branch: event.data.branch, headCommit: event.data.headCommit, verdict: event.data.verdict },
        endedAt: event.data.at,
      };
    case 'run.failed':
      return { ...state, status: 'failed', failure: event.data.reason, endedAt: event.data.at };
  }
}

function sessionStarted(state: RunState, d: Extract<RunEvent, { type: 'run.session-started' }>['data']): RunState {
  const session: RunSessionState = {
    sessionId: d.sessionId,
    purpose: d.purpose,
    persona: d.persona,
    attempt: d.attempt,
    released: d.leaseId === undefined,
    ended: false,
    ...(d.taskKey ? { taskKey: d.taskKey } : {}),
    ...(d.round ? { round: d.round } : {}),
    ...(d.escalationId ? { escalationId: d.escalationId } : {}),
    ...(d.leaseId ? { leaseId: d.leaseId } : {}),
    ...(d.routing ? { routing: d.routing } : {}),
    ...(d.agent ? { agent: d.agent } : {}),
  };
  const { [d.sessionId]: _dequeued, ...queued } = state.queued;
  let next: RunState = { ...state, queued, sessions: { ...state.sessions, [d.sessionId]: session } };
  if (d.purpose === 'workshop') next.workshopRounds = state.workshopRounds + 1;
  if (d.purpose === 'decompose' && d.attempt === 1) next.drafts = state.drafts + 1;
  if (d.purpose === 'qa') next.qaRounds = Math.max(state.qaRounds, d.round ?? state.qaRounds + 1);
  if (d.purpose === 'task' && d.taskKey) next = withTask(next, d.taskKey, () => ({ status: 'running', persona: d.persona, attempts: d.attempt }));
  return next;
}

function tasksAdded(state: RunState, added: AddedTask[]): RunState {
  const tasks = { ...state.tasks };
  const order = [...state.taskOrder];
  const maxAttempts = state.started?.limits.maxTaskAttempts ?? 1;
  for (const task of added) {
    if (tasks[task.key]) continue;
    tasks[task.key] = { task, status: 'pending', attempts: 0, maxAttempts, files: [], notes: [] };
    order.push(task.key);
  }
  return { ...state, tasks, taskOrder: order };
}

function escalationAnswered(state: RunState, escalationId: string, answer: EscalationAnswer, note?: string): RunState {
  const e = state.escalations[escalationId];
  if (!e) return state;
  let next: RunState = { ...state, escalations: { ...state.escalations, [escalationId]: { ...e, answer, ...(note ? { note } : {}) } } };
  const task = e.about !== undefined ? next.tasks[e.about] : undefined;
  const qaRound = e.about !== undefined ? qaRoundOfKey(e.about) : undefined;
  if (task && task.status === 'failed') {
    // A task out of attempts: "continue" goes on without it, "retry" grants one more attempt.
    if (answer === 'continue') next = withTask(next, task.task.key, () => ({ status: 'skipped' }));
    if (answer === 'retry') next = withTask(next, task.task.key, (t) => ({ status: 'pending', maxAttempts: t.attempts + 1, notes: note ? [...t.notes, note] : t.notes }));
  }
  if (qaRound !== undefined && qaRound >= state.maxQaRounds) {
    // QA out of rounds: "continue" accepts the result and moves on to review, "retry" allows one more round.
    if (answer === 'continue') next = withQaReport(next, qaRound, { passed: true });
    if (answer === 'retry') next = { ...next, maxQaRounds: state.maxQaRounds + 1 };
  }
  return next;
}

/**
 * A failed check sends back the work it judged, with the attempts left: before-fix the regression
 * task (its test does not reproduce the bug), after-fix the tasks that fix it. Out of attempts, the
 * task is failed (the decider fails the run with it).
 */
function regressionChecked(state: RunState, d: Extract<RunEvent, { type: 'run.regression-checked' }>['data']): RunState {
  const check: RegressionCheck = { stage: d.stage, ok: d.ok, exitCode: d.exitCode, commit: d.commit, command: d.command, testFiles: d.testFiles, output: d.output, at: d.at };
  let next: RunState = { ...state, regressionChecks: [...state.regressionChecks, check] };
  if (d.ok) return next;
  for (const key of sentBackBy(state, d.stage)) {
    next = withTask(next, key, (t) => (t.attempts < t.maxAttempts ? { status: 'pending', resolvedBy: undefined } : { status: 'failed' }));
  }
  return next;
}

/** The tasks a failed check of `stage` sends back: the regression task, or the tasks of the fix (not the conflict tasks that merged them in, nor those given up). */
export function sentBackBy(state: RunState, stage: RegressionCheck['stage']): string[] {
  const key = regressionKeyOf(state);
  if (!key) return [];
  if (stage === 'before-fix') return [key];
  return state.taskOrder.filter((k) => k !== key && state.tasks[k].task.origin !== 'merge-conflict' && state.tasks[k].status !== 'skipped');
}
