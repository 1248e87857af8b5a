import type { RunView } from '@headspace/contracts';
import type { RunState, RunTaskState, SessionPurpose } from './run.state';

const doing: Record<SessionPurpose, string> = {
  workshop: 'workshopping the goal',
  decompose: 'splitting the spec into tasks',
  task: 'building',
  qa: 'testing against the spec',
  review: 'reviewing the result',
  escalation: 'answering an escalation',
};

const viewStatus = (status: RunTaskState['status']) => (status === 'skipped' ? 'failed' : status === 'conflicted' ? 'done' : status);

/** What an operator is being asked for, if the run waits on them. */
export function waitingFor(state: RunState): string | null {
  if (state.status !== 'active') return null;
  const open = Object.values(state.escalations).find((e) => !e.answer && e.to === 'operator');
  if (open) return `an answer to escalation ${open.escalationId}: ${open.subject}`;
  if (state.pendingQuestions) return 'answers to Robbo’s questions';
  if (state.phase === 'spec-review') return 'acceptance of the spec';
  if (state.phase === 'tasks-review') return 'approval of Gavin’s tasks';
  return null;
}

/** The run as the API shows it; `activity` adds what each running session last did (from the sessions projection). */
export function runView(state: RunState, activity: Record<string, string | undefined> = {}): RunView {
  const s = state.started!;
  const personas = new Map<string, string>();
  for (const session of Object.values(state.sessions)) {
    if (session.ended) {
      if (!personas.has(session.persona)) personas.set(session.persona, 'idle');
      continue;
    }
    const task = session.taskKey ? state.tasks[session.taskKey] : undefined;
    const what = task ? `${doing.task} ${task.task.key} '${task.task.subject}'` : doing[session.purpose];
    const last = activity[session.sessionId];
    personas.set(session.persona, last ? `${what} — ${last}` : what);
  }
  return {
    runId: s.runId,
    team: s.team,
    title: s.title,
    mode: s.mode,
    operator: s.operator,
    phase: state.phase,
    simulated: s.simulated,
    waitingFor: waitingFor(state),
    spec: state.spec ?? null,
    questions: state.pendingQuestions?.questions ?? [],
    tasks: state.taskOrder.map((key) => {
      const t = state.tasks[key];
      return { key, subject: t.task.subject, pool: t.task.pool, status: viewStatus(t.status), persona: t.persona ?? null, attempts: t.attempts, origin: t.task.origin };
    }),
    personas: [...personas.entries()].map(([persona, act]) => ({ persona, name: s.roster.names[persona] ?? persona.charAt(0).toUpperCase() + persona.slice(1), activity: act })),
    sessions: Object.values(state.sessions).map((x) => ({
      sessionId: x.sessionId,
      purpose: x.purpose,
      persona: x.persona,
      taskKey: x.taskKey ?? null,
      attempt: x.attempt,
      agent: x.agent ?? null,
      routing: x.routing ?? null,
      ended: x.ended,
    })),
    agent: s.agent?.name ?? null,
    progress: { tasksDone: state.taskOrder.filter((k) => state.tasks[k].status === 'merged').length, tasksTotal: state.taskOrder.length },
    costUsd: null,
    qaRounds: state.qaReports.length,
    escalations: Object.values(state.escalations).map((e) => ({ escalationId: e.escalationId, from: e.from, to: e.to, subject: e.subject, answered: e.answer !== undefined })),
    ...(s.fix ? { regressionChecks: state.regressionChecks.map(({ stage, ok, exitCode, commit, at }) => ({ stage, ok, exitCode, commit, at })) } : {}),
    resultDir: state.result?.resultDir ?? state.workspace?.dir ?? null,
    branch: state.result?.branch ?? state.workspace?.branch ?? null,
    verdict: state.result?.verdict ?? null,
    failure: state.failure ?? null,
    startedAt: s.startedAt,
    endedAt: state.endedAt ?? null,
  };
}
