import { ErrorCodes, HeadspaceError, type RunTask } from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';
import { checkTaskGraph } from './task-graph';
import { acceptSpecEvents, answerEscalationEvents, approveTasksEvents, outcomeEvents, type SessionOutcome } from './run-outcomes';
import { evolveRun, initialRunState, qaRoundOfKey, type EscalationAnswer, type RunEvent, type RunState, type SessionPurpose, type Started } from './run.state';

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

function startRun(command: Extract<RunCommand, { type: 'start-run' }>, state: RunState): RunEvent[] {
  if (state.status !== 'none') return [];
  const { type: _t, now, ...data } = command;
  if (data.mode === 'v1') {
    if (!data.tasks?.length) throw new HeadspaceError(ErrorCodes.runTasksInvalid, 'A v1 run (operator as PM) needs the operator’s tasks', { field: 'tasks' });
    checkTaskGraph(data.tasks);
  }
  return [{ type: 'run.started', data: { ...data, startedAt: now } }];
}

function startSession(command: Extract<RunCommand, { type: 'start-session' }>, state: RunState): RunEvent[] {
  // A run that ended meanwhile starts nothing; the caller gives the persona back.
  if (state.sessions[command.sessionId] || state.status !== 'active') return [];
  const { type: _t, now, ...data } = command;
  const subject = command.taskKey ? state.tasks[command.taskKey]?.task.subject : undefined;
  return [{ type: 'run.session-started', data: { ...data, ...(subject ? { subject } : {}), at: now } }];
}

function recordMerge(command: Extract<RunCommand, { type: 'record-merge' }>, state: RunState, started: Started): RunEvent[] {
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
}

function completeRun(command: Extract<RunCommand, { type: 'complete-run' }>, state: RunState, started: Started): RunEvent[] {
  if (!state.review || !state.workspace) throw wrongPhase(state, 'complete before the review');
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
      data: { runId: started.runId, verdict: state.review.verdict, resultDir: state.workspace.dir, branch: state.workspace.branch, headCommit: command.headCommit, summary, at: command.now },
    },
  ];
}

/**
 * The run's rules. Every command the process may repeat after a crash (recording a session start,
 * an outcome, a queue place, a release, a merge) decides nothing the second time.
 */
function decide(command: RunCommand, state: RunState): RunEvent[] {
  const { now } = command;
  switch (command.type) {
    case 'start-run':
      return startRun(command, state);
    case 'start-session':
      return startSession(command, state);
    case 'record-session-outcome': {
      const session = state.sessions[command.sessionId];
      if (!session || session.ended) return [];
      return outcomeEvents(state, session, command);
    }
    case 'record-persona-released': {
      const s = state.sessions[command.sessionId];
      if (!s || s.released || !s.leaseId) return [];
      return [{ type: 'run.persona-released', data: { runId: command.runId, sessionId: s.sessionId, persona: s.persona, leaseId: s.leaseId, at: now } }];
    }
    default:
      break;
  }
  const started = requireActive(state, command.runId);
  const runId = started.runId;
  switch (command.type) {
    case 'record-workspace':
      if (state.workspace) return [];
      return [{ type: 'run.workspace-prepared', data: { runId, dir: command.dir, branch: command.branch, baseCommit: command.baseCommit, at: now } }];
    case 'record-persona-queued': {
      if (state.sessions[command.sessionId] || state.queued[command.sessionId]?.requestId === command.requestId) return [];
      const { type: _t, now: _n, ...data } = command;
      return [{ type: 'run.persona-queued', data: { ...data, at: now } }];
    }
    case 'answer-questions':
      if (!state.pendingQuestions) throw wrongPhase(state, 'answer questions: none are pending');
      return [{ type: 'run.questions-answered', data: { runId, round: state.pendingQuestions.round, answer: command.answer, by: command.by, at: now } }];
    case 'accept-spec':
      if (state.phase !== 'spec-review' || !state.spec) throw wrongPhase(state, 'accept a spec: none is waiting');
      return acceptSpecEvents(started, command.by, now);
    case 'approve-tasks': {
      if (state.phase !== 'tasks-review' || !state.proposal) throw wrongPhase(state, 'approve tasks: none are proposed');
      const tasks = command.tasks ?? state.proposal.tasks;
      checkTaskGraph(tasks);
      return approveTasksEvents(started, tasks, command.by, command.tasks !== undefined, now);
    }
    case 'reject-tasks':
      if (state.phase !== 'tasks-review' || !state.proposal) throw wrongPhase(state, 'turn tasks down: none are proposed');
      return [{ type: 'run.tasks-rejected', data: { runId, by: command.by, reason: command.reason, at: now } }];
    case 'record-tasks-created': {
      const fresh = command.tasks.filter((t) => state.tasks[t.key] && !state.tasks[t.key].teamTaskId);
      return fresh.length ? [{ type: 'run.tasks-created', data: { runId, team: command.team, tasks: fresh, at: now } }] : [];
    }
    case 'record-merge':
      return recordMerge(command, state, started);
    case 'answer-escalation': {
      const e = state.escalations[command.escalationId];
      if (!e) throw new HeadspaceError(ErrorCodes.runEscalationNotFound, `No escalation "${command.escalationId}" in run ${runId}`, { field: 'escalationId' });
      if (e.answer) return [];
      if (command.answer === 'escalate' && e.to === 'operator') throw wrongPhase(state, 'escalate past the operator');
      return answerEscalationEvents(state, command.escalationId, command.answer, command.note, command.by, now);
    }
    case 'complete-run':
      return completeRun(command, state, started);
    case 'fail-run':
      return [{ type: 'run.failed', data: { runId, reason: command.reason.slice(0, 5_000), at: now } }];
  }
}

export const runDecider: Decider<RunCommand, RunState, RunEvent> = { decide, evolve: evolveRun, initialState: initialRunState };
