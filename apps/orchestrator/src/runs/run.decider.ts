import { ErrorCodes, HeadspaceError, type RunTask, type SessionRouting } from '@headspace/contracts';
import { decideByType, type Decider } from '@headspace/event-store';
import { checkTaskGraph } from './task-graph';
import { acceptSpecEvents, answerEscalationEvents, approveTasksEvents, outcomeEvents, type SessionOutcome } from './run-outcomes';
import { checkFixRun, regressionCheckEvents, type RegressionCheckResult } from './fix-run/fix-run.rules';
import { dueRegressionCheck, evolveRun, fixVerified, initialRunState, qaRoundOfKey, type EscalationAnswer, type RunEvent, type RunState, type SessionPurpose, type Started } from './run.state';

export { AUTO_ANSWER, AUTO_OPERATOR } from './run-outcomes';
export * from './run.state';

type MergeResult = { status: 'merged' | 'nothing-to-merge'; commit?: string; files: string[] } | { status: 'conflict'; files: string[] };

export type RunCommand =
  | ({ type: 'start-run'; now: string } & Omit<Started, 'startedAt'>)
  | { type: 'record-workspace'; runId: string; dir: string; branch: string; baseCommit: string; now: string }
  | { type: 'record-persona-queued'; runId: string; sessionId: string; purpose: SessionPurpose; taskKey?: string; pool: string; requestId: string; position: number; now: string }
  | {
      type: 'start-session';
      runId: string;
      sessionId: string;
      purpose: SessionPurpose;
      persona: string;
      attempt: number;
      taskKey?: string;
      round?: number;
      escalationId?: string;
      pool?: string;
      leaseId?: string;
      affinity?: boolean;
      worktree?: string;
      routing?: SessionRouting;
      agent?: string;
      now: string;
    }
  | { type: 'record-persona-released'; runId: string; sessionId: string; now: string }
  | ({ type: 'record-session-outcome'; runId: string; sessionId: string } & SessionOutcome)
  | { type: 'answer-questions'; runId: string; answer: string; by: string; now: string }
  | { type: 'accept-spec'; runId: string; by: string; now: string }
  | { type: 'approve-tasks'; runId: string; tasks?: RunTask[]; by: string; now: string }
  | { type: 'reject-tasks'; runId: string; reason: string; by: string; now: string }
  | { type: 'record-tasks-created'; runId: string; team: string; tasks: Array<{ key: string; taskId: string }>; now: string }
  | { type: 'record-merge'; runId: string; taskKey: string; result: MergeResult; now: string }
  | { type: 'answer-escalation'; runId: string; escalationId: string; answer: EscalationAnswer; note?: string; by: string; now: string }
  | ({ type: 'record-regression-check'; runId: string; now: string } & RegressionCheckResult)
  | { type: 'complete-run'; runId: string; headCommit: string; now: string }
  | { type: 'fail-run'; runId: string; reason: string; now: string };

const wrongPhase = (state: RunState, what: string) =>
  new HeadspaceError(ErrorCodes.runWrongPhase, `Run is in phase "${state.phase}"${state.status === 'active' ? '' : ` (${state.status})`}: cannot ${what}`, { field: 'runId' });

function requireRun(state: RunState, runId: string): Started {
  if (state.status === 'none' || !state.started) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${runId}"`, { field: 'runId' });
  return state.started;
}

function requireActive(state: RunState, runId: string): Started {
  const started = requireRun(state, runId);
  if (state.status !== 'active') throw wrongPhase(state, 'change a finished run');
  return started;
}

type Decide<T extends RunCommand['type']> = (command: Extract<RunCommand, { type: T }>, state: RunState) => RunEvent[];
type DecideOnActive<T extends RunCommand['type']> = (command: Extract<RunCommand, { type: T }>, state: RunState, started: Started) => RunEvent[];

/** A command that changes the run needs it started and not finished. */
const onActiveRun =
  <C extends RunCommand>(decide: (command: C, state: RunState, started: Started) => RunEvent[]) =>
  (command: C, state: RunState): RunEvent[] =>
    decide(command, state, requireActive(state, command.runId));

/** A run starts once; a v1 run (the operator as PM) brings its own task graph, checked at the start. */
const startRun: Decide<'start-run'> = (command, state) => {
  if (state.status !== 'none') return [];
  const { type: _t, now, ...data } = command;
  if (data.mode === 'v1') {
    if (!data.tasks?.length) throw new HeadspaceError(ErrorCodes.runTasksInvalid, 'A v1 run (operator as PM) needs the operator’s tasks', { field: 'tasks' });
    checkTaskGraph(data.tasks);
  }
  if (data.fix) checkFixRun(data);
  return [{ type: 'run.started', data: { ...data, startedAt: now } }];
};

/** A session starts once, on an active run; a run that ended meanwhile starts nothing and the caller gives the persona back. */
const startSession: Decide<'start-session'> = (command, state) => {
  if (state.sessions[command.sessionId] || state.status !== 'active') return [];
  const { type: _t, now, ...data } = command;
  const subject = command.taskKey ? state.tasks[command.taskKey]?.task.subject : undefined;
  return [{ type: 'run.session-started', data: { ...data, ...(subject ? { subject } : {}), at: now } }];
};

/** A known session's outcome is recorded once, even after its run ended (so its persona can be given back). */
const recordSessionOutcome: Decide<'record-session-outcome'> = (command, state) => {
  const session = state.sessions[command.sessionId];
  if (!session || session.ended) return [];
  return outcomeEvents(state, session, command);
};

/** A session holding a lease gives its persona back once, even after its run ended. */
const recordPersonaReleased: Decide<'record-persona-released'> = (command, state) => {
  const s = state.sessions[command.sessionId];
  if (!s || s.released || !s.leaseId) return [];
  return [{ type: 'run.persona-released', data: { runId: command.runId, sessionId: s.sessionId, persona: s.persona, leaseId: s.leaseId, at: command.now } }];
};

/** The run's workspace is recorded once. */
const recordWorkspace: DecideOnActive<'record-workspace'> = (command, state, { runId }) => {
  if (state.workspace) return [];
  return [{ type: 'run.workspace-prepared', data: { runId, dir: command.dir, branch: command.branch, baseCommit: command.baseCommit, at: command.now } }];
};

/** A session waits in a pool's queue once per request, and not once it has started. */
const recordPersonaQueued: DecideOnActive<'record-persona-queued'> = (command, state) => {
  if (state.sessions[command.sessionId] || state.queued[command.sessionId]?.requestId === command.requestId) return [];
  const { type: _t, now, ...data } = command;
  return [{ type: 'run.persona-queued', data: { ...data, at: now } }];
};

/** Only pending questions are answered, for their round. */
const answerQuestions: DecideOnActive<'answer-questions'> = (command, state, { runId }) => {
  if (!state.pendingQuestions) throw wrongPhase(state, 'answer questions: none are pending');
  return [{ type: 'run.questions-answered', data: { runId, round: state.pendingQuestions.round, answer: command.answer, by: command.by, at: command.now } }];
};

/** Only a spec waiting for review is accepted. */
const acceptSpec: DecideOnActive<'accept-spec'> = (command, state, started) => {
  if (state.phase !== 'spec-review' || !state.spec) throw wrongPhase(state, 'accept a spec: none is waiting');
  return acceptSpecEvents(started, command.by, command.now);
};

/** Only proposed tasks are approved, as proposed or as edited by the operator, and only as a sound task graph. */
const approveTasks: DecideOnActive<'approve-tasks'> = (command, state, started) => {
  if (state.phase !== 'tasks-review' || !state.proposal) throw wrongPhase(state, 'approve tasks: none are proposed');
  const tasks = command.tasks ?? state.proposal.tasks;
  checkTaskGraph(tasks);
  return approveTasksEvents(started, tasks, command.by, command.tasks !== undefined, command.now);
};

/** Only proposed tasks are turned down, with the reason. */
const rejectTasks: DecideOnActive<'reject-tasks'> = (command, state, { runId }) => {
  if (state.phase !== 'tasks-review' || !state.proposal) throw wrongPhase(state, 'turn tasks down: none are proposed');
  return [{ type: 'run.tasks-rejected', data: { runId, by: command.by, reason: command.reason, at: command.now } }];
};

/** Each plan task's place on the team's task list is recorded once. */
const recordTasksCreated: DecideOnActive<'record-tasks-created'> = (command, state, { runId }) => {
  const fresh = command.tasks.filter((t) => state.tasks[t.key] && !state.tasks[t.key].teamTaskId);
  return fresh.length ? [{ type: 'run.tasks-created', data: { runId, team: command.team, tasks: fresh, at: command.now } }] : [];
};

/**
 * A merge is recorded once, only for a finished task (or an unmerged QA round); a conflict is never
 * an overwrite: it becomes a conflict task for the author.
 */
const recordMerge: DecideOnActive<'record-merge'> = (command, state, started) => {
  const { taskKey: key, now } = command;
  const round = qaRoundOfKey(key);
  if (round !== undefined) {
    const report = state.qaReports.find((r) => r.round === round);
    if (!report || report.merged) return [];
  } else if (state.tasks[key]?.status !== 'done') return [];
  const task = state.tasks[key];
  const ref = { runId: started.runId, taskKey: key, ...(task ? { subject: task.task.subject } : {}), ...(task?.persona ? { persona: task.persona } : {}) };
  if (command.result.status !== 'conflict') {
    return [{ type: 'run.task-merged', data: { ...ref, ...(command.result.commit ? { commit: command.result.commit } : {}), files: command.result.files, at: now } }];
  }
  const conflictKey = `C-${key}`.slice(0, 40);
  const files = command.result.files;
  return [
    { type: 'run.task-conflicted', data: { ...ref, files, conflictTaskKey: conflictKey, at: now } },
    {
      type: 'run.tasks-added',
      data: {
        runId: started.runId,
        tasks: [
          {
            key: conflictKey,
            subject: `Resolve merge conflict of ${key} in ${files.slice(0, 3).join(', ')}`.slice(0, 200),
            description: `Merging ${key} (${task?.task.subject ?? 'QA tests'}) into the run branch conflicted in: ${files.join(', ')}. Merge the run branch into your branch, keep both changes, and make the tests pass.`,
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
};

/** A known escalation is answered once; nobody is above the operator. */
const answerEscalation: DecideOnActive<'answer-escalation'> = (command, state, { runId }) => {
  const e = state.escalations[command.escalationId];
  if (!e) throw new HeadspaceError(ErrorCodes.runEscalationNotFound, `No escalation "${command.escalationId}" in run ${runId}`, { field: 'escalationId' });
  if (e.answer) return [];
  if (command.answer === 'escalate' && e.to === 'operator') throw wrongPhase(state, 'escalate past the operator');
  return answerEscalationEvents(state, command.escalationId, command.answer, command.note, command.by, command.now);
};

/** A fix run's check is recorded once, when it is due: a repeat after a crash finds it recorded and decides nothing. */
const recordRegressionCheck: DecideOnActive<'record-regression-check'> = (command, state) => {
  const { type: _t, runId: _r, now, ...result } = command;
  return dueRegressionCheck(state) === command.stage ? regressionCheckEvents(state, result, now) : [];
};

/**
 * A run completes only after its review (a fix run: once its test command passed after the fix),
 * with its verdict, where its result is, and its tasks, attempts, QA rounds and wall time.
 */
const completeRun: DecideOnActive<'complete-run'> = (command, state, started) => {
  const verdict = started.fix ? (fixVerified(state) ? 'done' : undefined) : state.review?.verdict;
  if (!verdict || !state.workspace) throw wrongPhase(state, started.fix ? 'complete before the fix passed its check' : 'complete before the review');
  const taskSessions = Object.values(state.sessions).filter((s) => s.purpose === 'task');
  const summary = {
    tasks: state.taskOrder.length,
    attempts: taskSessions.length,
    qaRounds: state.qaReports.length,
    wallTimeMs: Math.max(0, Date.parse(command.now) - Date.parse(started.startedAt)),
  };
  return [
    {
      type: 'run.completed',
      data: { runId: started.runId, verdict, resultDir: state.workspace.dir, branch: state.workspace.branch, headCommit: command.headCommit, summary, at: command.now },
    },
  ];
};

/** An active run fails with its reason (kept to 5,000 characters). */
const failRun: DecideOnActive<'fail-run'> = (command, _state, { runId }) => [{ type: 'run.failed', data: { runId, reason: command.reason.slice(0, 5_000), at: command.now } }];

/**
 * The run's rules. A fix run (`fix`, v1) is the operator's tasks with a regression task first: the
 * orchestrator runs the test command itself after the regression task merged (it must fail: the
 * test reproduces the bug) and after every task merged (it must pass); a failed check sends the
 * work back (fix-run/fix-run.rules.ts). These checks replace Verner's QA round and Robbo's review,
 * which a fix run does not have. Every command the process may repeat after a crash (recording a session start,
 * an outcome, a queue place, a release, a merge) decides nothing the second time.
 */
const decide = decideByType<RunCommand, RunState, RunEvent>({
  'start-run': startRun,
  'start-session': startSession,
  'record-session-outcome': recordSessionOutcome,
  'record-persona-released': recordPersonaReleased,
  'record-workspace': onActiveRun(recordWorkspace),
  'record-persona-queued': onActiveRun(recordPersonaQueued),
  'answer-questions': onActiveRun(answerQuestions),
  'accept-spec': onActiveRun(acceptSpec),
  'approve-tasks': onActiveRun(approveTasks),
  'reject-tasks': onActiveRun(rejectTasks),
  'record-tasks-created': onActiveRun(recordTasksCreated),
  'record-merge': onActiveRun(recordMerge),
  'answer-escalation': onActiveRun(answerEscalation),
  'record-regression-check': onActiveRun(recordRegressionCheck),
  'complete-run': onActiveRun(completeRun),
  'fail-run': onActiveRun(failRun),
});

export const runDecider: Decider<RunCommand, RunState, RunEvent> = { decide, evolve: evolveRun, initialState: initialRunState };
