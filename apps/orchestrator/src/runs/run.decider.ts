import {
  ErrorCodes,
  HeadspaceError,
  type EventData,
  type QaFailure,
  type RunSpec,
  type RunTask,
  type runCompleted,
  type runEscalated,
  type runEscalationAnswered,
  type runFailed,
  type runPhases,
  type runQaReported,
  type runQuestionsAnswered,
  type runQuestionsAsked,
  type runReviewReported,
  type runSessionEnded,
  type runSessionPurposes,
  type runSessionStarted,
  type runSpecAccepted,
  type runSpecDrafted,
  type runStarted,
  type runTaskConflicted,
  type runTaskFinished,
  type runTaskMerged,
  type runTasksAdded,
  type runTasksApproved,
  type runTasksProposed,
  type runWorkspacePrepared,
} from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';
import { checkTaskGraph } from './task-graph';
import type { PhaseOutput } from './run-output';

export type RunEvent =
  | { type: 'run.started'; data: EventData<typeof runStarted> }
  | { type: 'run.workspace-prepared'; data: EventData<typeof runWorkspacePrepared> }
  | { type: 'run.session-started'; data: EventData<typeof runSessionStarted> }
  | { type: 'run.session-ended'; data: EventData<typeof runSessionEnded> }
  | { type: 'run.questions-asked'; data: EventData<typeof runQuestionsAsked> }
  | { type: 'run.questions-answered'; data: EventData<typeof runQuestionsAnswered> }
  | { type: 'run.spec-drafted'; data: EventData<typeof runSpecDrafted> }
  | { type: 'run.spec-accepted'; data: EventData<typeof runSpecAccepted> }
  | { type: 'run.tasks-proposed'; data: EventData<typeof runTasksProposed> }
  | { type: 'run.tasks-approved'; data: EventData<typeof runTasksApproved> }
  | { type: 'run.tasks-added'; data: EventData<typeof runTasksAdded> }
  | { type: 'run.task-finished'; data: EventData<typeof runTaskFinished> }
  | { type: 'run.task-merged'; data: EventData<typeof runTaskMerged> }
  | { type: 'run.task-conflicted'; data: EventData<typeof runTaskConflicted> }
  | { type: 'run.qa-reported'; data: EventData<typeof runQaReported> }
  | { type: 'run.review-reported'; data: EventData<typeof runReviewReported> }
  | { type: 'run.escalated'; data: EventData<typeof runEscalated> }
  | { type: 'run.escalation-answered'; data: EventData<typeof runEscalationAnswered> }
  | { type: 'run.completed'; data: EventData<typeof runCompleted> }
  | { type: 'run.failed'; data: EventData<typeof runFailed> };

export type RunPhase = (typeof runPhases)[number];
export type SessionPurpose = (typeof runSessionPurposes)[number];
type Started = EventData<typeof runStarted>;
type AddedTask = EventData<typeof runTasksAdded>['tasks'][number];

export interface RunTaskState {
  task: AddedTask;
  status: 'pending' | 'running' | 'done' | 'merged' | 'failed' | 'skipped';
  persona?: string;
  attempts: number;
  files: string[];
  summary?: string;
}

export interface RunSessionState {
  sessionId: string;
  purpose: SessionPurpose;
  persona: string;
  taskKey?: string;
  round?: number;
  attempt: number;
  ended: boolean;
  exitReason?: string;
}

export interface RunState {
  status: 'none' | 'active' | 'completed' | 'failed';
  started?: Started;
  phase: RunPhase;
  workspace?: { dir: string; branch: string; baseCommit: string };
  sessions: Record<string, RunSessionState>;
  workshopRounds: number;
  pendingQuestions?: { round: number; questions: string[] };
  answers: string[];
  spec?: RunSpec;
  specAccepted: boolean;
  decompositionAttempts: number;
  proposedTasks?: RunTask[];
  tasks: Record<string, RunTaskState>;
  taskOrder: string[];
  qaRounds: number;
  qaReports: Array<{ round: number; passed: boolean; failures: QaFailure[]; merged: boolean }>;
  reviewAttempts: number;
  review?: { verdict: 'done' | 'issues'; report: string; issues: string[] };
  escalations: Record<string, { from: string; to: string; subject: string; answer?: 'continue' | 'stop' }>;
  result?: { resultDir: string; branch: string; headCommit: string; verdict: 'done' | 'issues' };
  failure?: string;
  startedAt?: string;
  endedAt?: string;
}

export type RunCommand =
  | ({ type: 'start-run'; now: string } & Omit<Started, 'startedAt'>)
  | { type: 'record-workspace'; runId: string; dir: string; branch: string; baseCommit: string; now: string }
  | { type: 'start-session'; runId: string; sessionId: string; purpose: SessionPurpose; persona: string; taskKey?: string; round?: number; attempt: number; now: string }
  | { type: 'record-session-outcome'; runId: string; sessionId: string; exitReason: string; summary: string; output: PhaseOutput; files: string[]; now: string }
  | { type: 'answer-questions'; runId: string; answer: string; by: string; now: string }
  | { type: 'accept-spec'; runId: string; by: string; now: string }
  | { type: 'approve-tasks'; runId: string; tasks?: RunTask[]; by: string; now: string }
  | { type: 'record-merge'; runId: string; taskKey: string; result: { status: 'merged' | 'nothing-to-merge'; commit?: string; files: string[] } | { status: 'conflict'; files: string[] }; now: string }
  | { type: 'answer-escalation'; runId: string; escalationId: string; answer: 'continue' | 'stop'; note?: string; by: string; now: string }
  | { type: 'complete-run'; runId: string; headCommit: string; now: string }
  | { type: 'fail-run'; runId: string; reason: string; now: string };

export const AUTO_OPERATOR = 'auto-operator';
export const AUTO_ANSWER = 'No further constraints: use the goal as written and your best judgement.';
export const qaMergeKey = (round: number) => `qa-r${round}`;

export const initialRunState = (): RunState => ({
  status: 'none',
  phase: 'workshop',
  sessions: {},
  workshopRounds: 0,
  answers: [],
  specAccepted: false,
  decompositionAttempts: 0,
  tasks: {},
  taskOrder: [],
  qaRounds: 0,
  qaReports: [],
  reviewAttempts: 0,
  escalations: {},
});

const wrongPhase = (state: RunState, what: string) =>
  new HeadspaceError(ErrorCodes.runWrongPhase, `Run is in phase "${state.phase}"${state.status === 'active' ? '' : ` (${state.status})`}: cannot ${what}`, { field: 'runId' });

function requireActive(state: RunState, runId: string): Started {
  if (state.status === 'none' || !state.started) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${runId}"`, { field: 'runId' });
  if (state.status !== 'active') throw wrongPhase(state, 'change a finished run');
  return state.started;
}

function acceptSpecEvents(state: RunState, started: Started, by: string, now: string): RunEvent[] {
  const events: RunEvent[] = [{ type: 'run.spec-accepted', data: { runId: started.runId, by, at: now } }];
  if (started.mode === 'v1' && started.tasks?.length) {
    events.push({ type: 'run.tasks-added', data: { runId: started.runId, tasks: started.tasks.map((t) => ({ ...t, origin: 'plan' as const })), at: now } });
  }
  return events;
}

function approveTasksEvents(started: Started, tasks: RunTask[], by: string, edited: boolean, now: string): RunEvent[] {
  return [
    { type: 'run.tasks-approved', data: { runId: started.runId, tasks, by, edited, at: now } },
    { type: 'run.tasks-added', data: { runId: started.runId, tasks: tasks.map((t) => ({ ...t, origin: 'plan' as const })), at: now } },
  ];
}

function outcomeEvents(state: RunState, started: Started, session: RunSessionState, command: Extract<RunCommand, { type: 'record-session-outcome' }>): RunEvent[] {
  const { runId } = started;
  const { now, output } = command;
  const ended: RunEvent = {
    type: 'run.session-ended',
    data: { runId, sessionId: session.sessionId, exitReason: command.exitReason, summary: command.summary.slice(0, 20_000), ...(output.kind === 'invalid' ? { outputError: output.error.slice(0, 2_000) } : {}), at: now },
  };
  const events: RunEvent[] = [ended];
  switch (session.purpose) {
    case 'workshop':
      if (output.kind === 'spec') {
        events.push({ type: 'run.spec-drafted', data: { runId, spec: output.spec, at: now } });
        if (started.operator === 'auto') events.push(...acceptSpecEvents(state, started, AUTO_OPERATOR, now));
      } else if (output.kind === 'questions') {
        events.push({ type: 'run.questions-asked', data: { runId, round: session.round ?? 1, questions: output.questions, at: now } });
        if (started.operator === 'auto') events.push({ type: 'run.questions-answered', data: { runId, round: session.round ?? 1, answer: AUTO_ANSWER, by: AUTO_OPERATOR, at: now } });
      }
      return events;
    case 'decompose':
      if (output.kind !== 'tasks') return events;
      if (started.mode === 'v2') {
        events.push({ type: 'run.tasks-proposed', data: { runId, tasks: output.tasks, by: session.persona, at: now } });
        if (started.operator === 'auto') events.push(...approveTasksEvents(started, output.tasks, AUTO_OPERATOR, false, now));
      } else {
        events.push({ type: 'run.tasks-added', data: { runId, tasks: output.tasks.map((t) => ({ ...t, origin: 'plan' as const })), at: now } });
      }
      return events;
    case 'task': {
      const key = session.taskKey!;
      const completed = command.exitReason === 'completed' && (output.kind !== 'task' || output.status !== 'failed');
      events.push({
        type: 'run.task-finished',
        data: { runId, taskKey: key, persona: session.persona, sessionId: session.sessionId, attempt: session.attempt, outcome: completed ? 'completed' : 'failed', summary: command.summary.slice(0, 10_000), files: command.files, at: now },
      });
      const attemptsLeft = session.attempt < started.limits.maxTaskAttempts;
      if (!completed && !attemptsLeft) {
        events.push(escalation(state, runId, `${key}-attempts`, session.persona, 'operator', `Task ${key} failed ${session.attempt} times`, command.summary, now));
      }
      return events;
    }
    case 'qa': {
      const round = session.round ?? state.qaRounds;
      if (output.kind !== 'qa') return events;
      events.push({ type: 'run.qa-reported', data: { runId, round, passed: output.passed, failures: output.failures, summary: command.summary.slice(0, 10_000), at: now } });
      if (output.passed) return events;
      if (round >= started.limits.maxQaRounds) {
        events.push(escalation(state, runId, `qa-r${round}`, 'verner', 'operator', `QA still failing after ${round} rounds`, output.failures.map((f) => `${f.test}: ${f.message}`).join('\n'), now));
        return events;
      }
      const fixes = output.failures.filter((f) => f.decision === 'send-back');
      if (fixes.length) events.push({ type: 'run.tasks-added', data: { runId, tasks: fixes.map((f, i) => fixTask(state, round, i, f)), at: now } });
      output.failures
        .filter((f) => f.decision === 'escalate')
        .forEach((f, i) => events.push(escalation(state, runId, `qa-r${round}-${i + 1}`, 'verner', 'robbo', `Spec ambiguity: ${f.test}`, f.details || f.message, now)));
      return events;
    }
    case 'review':
      if (output.kind === 'review') events.push({ type: 'run.review-reported', data: { runId, verdict: output.verdict, report: output.report, issues: output.issues, at: now } });
      return events;
  }
}

function fixTask(state: RunState, round: number, index: number, failure: QaFailure): AddedTask {
  const origin = failure.taskKey ? state.tasks[failure.taskKey] : undefined;
  const what = failure.details || failure.message || failure.test;
  return {
    key: `F${round}-${index + 1}`,
    subject: `Fix: ${what}`.slice(0, 200),
    description: `QA round ${round} (Verner) found a failure${failure.taskKey ? ` in ${failure.taskKey}` : ''}.\nTest: ${failure.test}\n${failure.message}\n${failure.details}`.trim(),
    pool: origin?.task.pool ?? 'backend',
    acceptanceCriteria: [`${failure.test} passes`],
    dependsOn: [],
    origin: 'qa-fix',
    ...(origin?.persona ? { author: origin.persona } : {}),
  };
}

function escalation(state: RunState, runId: string, escalationId: string, from: string, to: 'gavin' | 'robbo' | 'operator', subject: string, details: string, now: string): RunEvent {
  return { type: 'run.escalated', data: { runId, escalationId: state.escalations[escalationId] ? `${escalationId}-${Object.keys(state.escalations).length}` : escalationId, from, to, subject: subject.slice(0, 500), details: details.slice(0, 10_000), at: now } };
}

/**
 * The run's rules. Every command a reconciler may repeat after a crash (starting a session,
 * recording an outcome or a merge) decides nothing the second time.
 */
function decide(command: RunCommand, state: RunState): RunEvent[] {
  const { now } = command;
  if (command.type === 'start-run') {
    if (state.status !== 'none') return [];
    const { type: _t, now: _n, ...data } = command;
    if (data.mode === 'v1') {
      if (!data.tasks?.length) throw new HeadspaceError(ErrorCodes.runTasksInvalid, 'A v1 run (operator as PM) needs the operator’s tasks', { field: 'tasks' });
      checkTaskGraph(data.tasks);
    }
    return [{ type: 'run.started', data: { ...data, startedAt: now } }];
  }
  if (command.type === 'record-workspace') {
    if (state.workspace) return [];
    requireActive(state, command.runId);
    return [{ type: 'run.workspace-prepared', data: { runId: command.runId, dir: command.dir, branch: command.branch, baseCommit: command.baseCommit, at: now } }];
  }
  if (command.type === 'start-session') {
    if (state.sessions[command.sessionId]) return [];
    requireActive(state, command.runId);
    const { type: _t, now: _n, ...data } = command;
    return [{ type: 'run.session-started', data: { ...data, at: now } }];
  }
  if (command.type === 'record-session-outcome') {
    const session = state.sessions[command.sessionId];
    if (!session || session.ended || state.status !== 'active') return [];
    return outcomeEvents(state, state.started!, session, command);
  }
  const started = requireActive(state, command.runId);
  switch (command.type) {
    case 'answer-questions': {
      if (!state.pendingQuestions) throw wrongPhase(state, 'answer questions: none are pending');
      return [{ type: 'run.questions-answered', data: { runId: started.runId, round: state.pendingQuestions.round, answer: command.answer, by: command.by, at: now } }];
    }
    case 'accept-spec': {
      if (state.phase !== 'spec-review' || !state.spec) throw wrongPhase(state, 'accept a spec: none is waiting');
      return acceptSpecEvents(state, started, command.by, now);
    }
    case 'approve-tasks': {
      if (state.phase !== 'tasks-review' || !state.proposedTasks) throw wrongPhase(state, 'approve tasks: none are proposed');
      const tasks = command.tasks ?? state.proposedTasks;
      checkTaskGraph(tasks);
      return approveTasksEvents(started, tasks, command.by, command.tasks !== undefined, now);
    }
    case 'record-merge': {
      const key = command.taskKey;
      const qaRound = /^qa-r(\d+)$/.exec(key);
      if (qaRound) {
        const report = state.qaReports.find((r) => r.round === Number(qaRound[1]));
        if (!report || report.merged) return [];
      } else if (state.tasks[key]?.status !== 'done') return [];
      if (command.result.status === 'conflict') {
        const conflictKey = `C-${key}`.slice(0, 40);
        const task = state.tasks[key];
        return [
          { type: 'run.task-conflicted', data: { runId: started.runId, taskKey: key, files: command.result.files, conflictTaskKey: conflictKey, at: now } },
          {
            type: 'run.tasks-added',
            data: {
              runId: started.runId,
              tasks: [
                {
                  key: conflictKey,
                  subject: `Resolve merge conflict of ${key} in ${command.result.files.slice(0, 3).join(', ')}`.slice(0, 200),
                  description: `Merging ${key} (${task?.task.subject ?? 'QA tests'}) into the run branch conflicted in: ${command.result.files.join(', ')}. Merge the run branch into your branch, keep both changes, and make the tests pass.`,
                  pool: task?.task.pool ?? 'backend',
                  acceptanceCriteria: ['Both changes are kept', 'The tests pass'],
                  dependsOn: [],
                  origin: 'merge-conflict' as const,
                  ...(task?.persona ? { author: task.persona } : {}),
                },
              ],
              at: now,
            },
          },
        ];
      }
      return [{ type: 'run.task-merged', data: { runId: started.runId, taskKey: key, ...(command.result.commit ? { commit: command.result.commit } : {}), files: command.result.files, at: now } }];
    }
    case 'answer-escalation': {
      const escalation = state.escalations[command.escalationId];
      if (!escalation) throw new HeadspaceError(ErrorCodes.runEscalationNotFound, `No escalation "${command.escalationId}" in run ${started.runId}`, { field: 'escalationId' });
      if (escalation.answer) return [];
      const events: RunEvent[] = [
        { type: 'run.escalation-answered', data: { runId: started.runId, escalationId: command.escalationId, answer: command.answer, ...(command.note ? { note: command.note } : {}), by: command.by, at: now } },
      ];
      if (command.answer === 'stop') events.push({ type: 'run.failed', data: { runId: started.runId, reason: `Stopped by ${command.by}: ${escalation.subject}`, at: now } });
      return events;
    }
    case 'complete-run': {
      if (!state.review || !state.workspace) throw wrongPhase(state, 'complete before the review');
      return [{ type: 'run.completed', data: { runId: started.runId, verdict: state.review.verdict, resultDir: state.workspace.dir, branch: state.workspace.branch, headCommit: command.headCommit, at: now } }];
    }
    case 'fail-run':
      return [{ type: 'run.failed', data: { runId: started.runId, reason: command.reason.slice(0, 5_000), at: now } }];
  }
}

/** The phase is never stored on its own: it follows from what the run has recorded. */
export function phaseOf(state: RunState): RunPhase {
  if (state.status === 'completed') return 'completed';
  if (state.status === 'failed') return 'failed';
  if (!state.spec) return 'workshop';
  if (!state.specAccepted) return 'spec-review';
  if (state.taskOrder.length === 0) return state.proposedTasks ? 'tasks-review' : 'decomposition';
  if (state.taskOrder.some((k) => !['merged', 'skipped'].includes(state.tasks[k].status))) return 'execution';
  if (!state.qaReports.some((r) => r.passed)) return 'qa';
  return 'review';
}

function evolve(state: RunState, event: RunEvent): RunState {
  const next = apply(state, event);
  return { ...next, phase: phaseOf(next) };
}

function apply(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'run.started':
      return { ...state, status: 'active', started: event.data, startedAt: event.data.startedAt };
    case 'run.workspace-prepared':
      return { ...state, workspace: { dir: event.data.dir, branch: event.data.branch, baseCommit: event.data.baseCommit } };
    case 'run.session-started': {
      const d = event.data;
      const session: RunSessionState = { sessionId: d.sessionId, purpose: d.purpose, persona: d.persona, attempt: d.attempt, ended: false, ...(d.taskKey ? { taskKey: d.taskKey } : {}), ...(d.round ? { round: d.round } : {}) };
      const next: RunState = { ...state, sessions: { ...state.sessions, [d.sessionId]: session } };
      if (d.purpose === 'workshop') next.workshopRounds = state.workshopRounds + 1;
      if (d.purpose === 'decompose') next.decompositionAttempts = state.decompositionAttempts + 1;
      if (d.purpose === 'qa') next.qaRounds = Math.max(state.qaRounds, d.round ?? state.qaRounds + 1);
      if (d.purpose === 'review') next.reviewAttempts = state.reviewAttempts + 1;
      if (d.purpose === 'task' && d.taskKey && state.tasks[d.taskKey]) {
        next.tasks = { ...state.tasks, [d.taskKey]: { ...state.tasks[d.taskKey], status: 'running', persona: d.persona, attempts: d.attempt } };
      }
      return next;
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
      return { ...state, proposedTasks: event.data.tasks };
    case 'run.tasks-approved':
      return { ...state, proposedTasks: undefined };
    case 'run.tasks-added': {
      const tasks = { ...state.tasks };
      const order = [...state.taskOrder];
      for (const task of event.data.tasks) {
        if (tasks[task.key]) continue;
        tasks[task.key] = { task, status: 'pending', attempts: 0, files: [] };
        order.push(task.key);
      }
      return { ...state, tasks, taskOrder: order };
    }
    case 'run.task-finished': {
      const t = state.tasks[event.data.taskKey];
      if (!t) return state;
      const completed = event.data.outcome === 'completed';
      const exhausted = !completed && event.data.attempt >= (state.started?.limits.maxTaskAttempts ?? 1);
      const status: RunTaskState['status'] = completed ? 'done' : exhausted ? 'failed' : 'pending';
      return { ...state, tasks: { ...state.tasks, [t.task.key]: { ...t, status, files: event.data.files, summary: event.data.summary } } };
    }
    case 'run.task-merged': {
      const qa = /^qa-r(\d+)$/.exec(event.data.taskKey);
      if (qa) return ({ ...state, qaReports: state.qaReports.map((r) => (r.round === Number(qa[1]) ? { ...r, merged: true } : r)) });
      const t = state.tasks[event.data.taskKey];
      return t ? ({ ...state, tasks: { ...state.tasks, [t.task.key]: { ...t, status: 'merged' } } }) : state;
    }
    case 'run.task-conflicted': {
      const qa = /^qa-r(\d+)$/.exec(event.data.taskKey);
      if (qa) return { ...state, qaReports: state.qaReports.map((r) => (r.round === Number(qa[1]) ? { ...r, merged: true } : r)) };
      const t = state.tasks[event.data.taskKey];
      // The work stays on the author's branch; the conflict task (added next) brings it in.
      return t ? { ...state, tasks: { ...state.tasks, [t.task.key]: { ...t, status: 'skipped' } } } : state;
    }
    case 'run.qa-reported':
      return ({ ...state, qaReports: [...state.qaReports, { round: event.data.round, passed: event.data.passed, failures: event.data.failures, merged: false }] });
    case 'run.review-reported':
      return { ...state, review: { verdict: event.data.verdict, report: event.data.report, issues: event.data.issues } };
    case 'run.escalated':
      return { ...state, escalations: { ...state.escalations, [event.data.escalationId]: { from: event.data.from, to: event.data.to, subject: event.data.subject } } };
    case 'run.escalation-answered': {
      const e = state.escalations[event.data.escalationId];
      if (!e) return state;
      const next = { ...state, escalations: { ...state.escalations, [event.data.escalationId]: { ...e, answer: event.data.answer } } };
      if (event.data.answer === 'continue') {
        // Continuing past a task that ran out of attempts: the run goes on without it.
        const key = /^(.+)-attempts$/.exec(event.data.escalationId)?.[1];
        if (key && next.tasks[key]?.status === 'failed') next.tasks = { ...next.tasks, [key]: { ...next.tasks[key], status: 'skipped' } };
        // Continuing past QA that ran out of rounds: accept the QA result and move on to review.
        if (/^qa-r\d+$/.test(event.data.escalationId)) {
          const round = Number(event.data.escalationId.slice(4));
          next.qaReports = next.qaReports.map((r) => (r.round === round ? { ...r, passed: true } : r));
        }
      }
      return (next);
    }
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

export const runDecider: Decider<RunCommand, RunState, RunEvent> = { decide, evolve, initialState: initialRunState };
