import { AUTO_OPERATOR } from './run-outcomes';
import { dueRegressionCheck, fixVerified, isSettled, qaMergeKey, regressionKeyOf, type RegressionCheck, type RunSessionState, type RunState, type RunTaskState, type SessionPurpose } from './run.state';

/** What the process should do next for a run. Every action is safe to repeat. */
export type RunAction =
  | { type: 'prepare-workspace' }
  | { type: 'release-persona'; sessionId: string; leaseId: string }
  | { type: 'create-team-tasks'; keys: string[] }
  | {
      type: 'start-session';
      sessionId: string;
      purpose: SessionPurpose;
      /** The team-manager persona pool to take the persona from, preferring `affinity` when it is free. */
      pool: string;
      affinity?: string;
      taskKey?: string;
      round?: number;
      escalationId?: string;
      attempt: number;
    }
  | { type: 'check-approval'; approvalId: string }
  | { type: 'merge'; taskKey: string; persona: string }
  /** A fix run: run its test command on the run branch head and record what it gave. */
  | { type: 'regression-check'; stage: RegressionCheck['stage'] }
  | { type: 'answer-escalation'; escalationId: string; answer: 'continue'; by: string }
  | { type: 'complete' }
  | { type: 'fail'; reason: string };

type StartAction = Extract<RunAction, { type: 'start-session' }>;

/** Attempts a phase session (workshop, decomposition, QA, review) gets before the run fails. */
export const PHASE_SESSION_ATTEMPTS = 2;
/** Drafts Gavin may make (v2: the operator turned the earlier ones down) before the run fails. */
export const MAX_PLAN_DRAFTS = 3;

/** The pools phase sessions take their persona from (seed 000 §5.4). */
export const PHASE_POOLS = { workshop: 'workshop', decompose: 'pm', qa: 'qa', review: 'review', gavin: 'pm', robbo: 'architecture' } as const;
const NON_EXECUTION_POOLS = new Set(['workshop', 'architecture', 'review', 'pm', 'qa', 'ops']);

export const sessionIdFor = (runId: string, purpose: SessionPurpose, step: string, attempt: number) => `${runId}.${purpose}.${step}.a${attempt}`;
/** Session ids start with the run id (which has no dots), so a session event names its run. */
export const runIdOfSession = (sessionId: string): string | undefined =>
  (/^([a-z0-9][a-z0-9-]*)\.(workshop|decompose|task|qa|review|escalation)\./.exec(sessionId) ?? [])[1];

const sessionsOf = (state: RunState, prefix: string) => Object.values(state.sessions).filter((s) => s.sessionId.startsWith(prefix));
const running = (state: RunState) => Object.values(state.sessions).filter((s) => !s.ended);

/** A phase step (e.g. QA round 2) gets a new session while earlier attempts ended without output. */
function phaseSession(state: RunState, purpose: SessionPurpose, step: string, pool: string, extra: Partial<StartAction> = {}): RunAction[] {
  const runId = state.started!.runId;
  const previous = sessionsOf(state, `${runId}.${purpose}.${step}.`);
  if (previous.some((s) => !s.ended)) return [];
  if (previous.length >= PHASE_SESSION_ATTEMPTS) return [{ type: 'fail', reason: `${purpose} ${step} produced no usable output after ${previous.length} sessions` }];
  const attempt = previous.length + 1;
  return [{ type: 'start-session', sessionId: sessionIdFor(runId, purpose, step, attempt), purpose, pool, attempt, ...extra }];
}

/** Builders' pools: every pool of the roster but Robbo's, Gavin's, Verner's and Leon's. */
function executionPools(state: RunState): Record<string, string[]> {
  return Object.fromEntries(Object.entries(state.started!.roster.pools).filter(([pool]) => !NON_EXECUTION_POOLS.has(pool)));
}

/**
 * Where a task's persona comes from: its skill pool, preferring its author (a QA fix or a merge
 * conflict goes back to whoever wrote the code) or the persona of its last attempt. A task whose
 * skill domain has no pool is cross-cutting (seed 000 §8.3): it goes to the generalist — the
 * builder in the most pools — through one of the generalist's pools.
 */
export function poolFor(state: RunState, t: RunTaskState): { pool: string; affinity?: string } {
  const affinity = t.task.author ?? (t.attempts > 0 ? t.persona : undefined);
  // A fix run's regression test is Verner's, though QA is not a builders' pool.
  if (t.task.key === regressionKeyOf(state)) return { pool: PHASE_POOLS.qa, ...(affinity ? { affinity } : {}) };
  const pools = executionPools(state);
  if (pools[t.task.pool]) return { pool: t.task.pool, ...(affinity ? { affinity } : {}) };
  const counts = new Map<string, number>();
  for (const members of Object.values(pools)) for (const p of members) counts.set(p, (counts.get(p) ?? 0) + 1);
  const generalist = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const pool = Object.entries(pools).find(([, members]) => members.includes(affinity ?? generalist ?? ''))?.[0] ?? t.task.pool;
  return { pool, ...((affinity ?? generalist) ? { affinity: affinity ?? generalist } : {}) };
}

/** A fix run's plan tasks build on the reproduced bug, whatever dependencies they name. */
function dependenciesOf(state: RunState, key: string): string[] {
  const t = state.tasks[key];
  const regression = regressionKeyOf(state);
  return regression && key !== regression && t.task.origin === 'plan' ? [...t.task.dependsOn, regression] : t.task.dependsOn;
}

/** A fix run's own steps: its checks (nothing else starts while one is due), its end, or its failure when the regression task was given up. */
function fixRunSteps(state: RunState): RunAction[] | undefined {
  const key = regressionKeyOf(state);
  if (!key) return undefined;
  if (state.tasks[key]?.status === 'skipped') return [{ type: 'fail', reason: `The regression task ${key} was given up: the fix cannot be shown to work without a failing regression test` }];
  const due = dueRegressionCheck(state);
  if (due) return [{ type: 'regression-check', stage: due }];
  return fixVerified(state) ? [{ type: 'complete' }] : undefined;
}

function execution(state: RunState): RunAction[] {
  const started = state.started!;
  const merges: RunAction[] = state.taskOrder.filter((k) => state.tasks[k].status === 'done').map((k) => ({ type: 'merge', taskKey: k, persona: state.tasks[k].persona! }));
  if (merges.length) return merges; // merge before starting dependants: they build on the merged work
  const fixSteps = fixRunSteps(state);
  if (fixSteps) return fixSteps;
  const actions: RunAction[] = [];
  let busy = running(state).length;
  for (const key of state.taskOrder) {
    const t = state.tasks[key];
    if (t.status !== 'pending' || busy >= started.limits.maxConcurrentAgents) continue;
    if (!dependenciesOf(state, key).every((d) => isSettled(state, d))) continue;
    busy++;
    if (t.handoffs && t.persona) {
      // The same attempt, carried on from the handoff by a fresh session of the same persona.
      const sessionId = `${sessionIdFor(started.runId, 'task', key, t.attempts)}.h${t.handoffs}`;
      actions.push({ type: 'start-session', sessionId, purpose: 'task', taskKey: key, attempt: t.attempts, ...poolFor(state, t), affinity: t.persona });
      continue;
    }
    const attempt = t.attempts + 1;
    actions.push({ type: 'start-session', sessionId: sessionIdFor(started.runId, 'task', key, attempt), purpose: 'task', taskKey: key, attempt, ...poolFor(state, t) });
  }
  return actions;
}

function escalations(state: RunState): RunAction[] | undefined {
  const open = Object.values(state.escalations).filter((e) => !e.answer);
  if (!open.length) return undefined;
  return open.flatMap((e): RunAction[] => {
    if (e.to === 'operator') return state.started!.operator === 'auto' ? [{ type: 'answer-escalation', escalationId: e.escalationId, answer: 'continue', by: AUTO_OPERATOR }] : [];
    return phaseSession(state, 'escalation', e.escalationId, PHASE_POOLS[e.to], { affinity: e.to, escalationId: e.escalationId });
  });
}

function phaseActions(state: RunState): RunAction[] {
  const started = state.started!;
  const unmergedQa = state.qaReports.find((r) => !r.merged);
  if (unmergedQa) {
    const qaSession = Object.values(state.sessions).find((s) => s.purpose === 'qa' && s.round === unmergedQa.round);
    return [{ type: 'merge', taskKey: qaMergeKey(unmergedQa.round), persona: qaSession?.persona ?? 'verner' }];
  }
  switch (state.phase) {
    case 'workshop': {
      if (state.pendingQuestions) return []; // the operator answers
      const round = state.answers.length + 1;
      if (round > started.limits.maxWorkshopRounds) return [{ type: 'fail', reason: `No spec after ${started.limits.maxWorkshopRounds} workshop rounds` }];
      return phaseSession(state, 'workshop', `r${round}`, PHASE_POOLS.workshop, { round });
    }
    case 'decomposition': {
      const draft = state.rejections.length + 1;
      if (draft > MAX_PLAN_DRAFTS) return [{ type: 'fail', reason: `The operator turned down ${MAX_PLAN_DRAFTS} drafts of the plan` }];
      return phaseSession(state, 'decompose', `d${draft}`, PHASE_POOLS.decompose);
    }
    case 'tasks-review':
      return state.proposal?.approvalId ? [{ type: 'check-approval', approvalId: state.proposal.approvalId }] : [];
    case 'execution':
      return execution(state);
    case 'qa': {
      const last = state.qaReports.at(-1);
      const round = last && last.round >= state.qaRounds ? last.round + 1 : Math.max(1, state.qaRounds);
      return phaseSession(state, 'qa', `r${round}`, PHASE_POOLS.qa, { round });
    }
    case 'review':
      return state.review ? [{ type: 'complete' }] : phaseSession(state, 'review', 'final', PHASE_POOLS.review);
    default:
      return []; // spec-review: the operator accepts
  }
}

/** Ended sessions whose persona still holds its pool lease. */
const releases = (state: RunState): RunAction[] =>
  Object.values(state.sessions)
    .filter((s): s is RunSessionState & { leaseId: string } => s.ended && !s.released && s.leaseId !== undefined)
    .map((s) => ({ type: 'release-persona', sessionId: s.sessionId, leaseId: s.leaseId }));

/** The next steps of a run, decided from its state alone (level-triggered: the same state gives the same steps). */
export function nextActions(state: RunState): RunAction[] {
  const free = releases(state);
  if (state.status !== 'active' || !state.started) return free;
  if (!state.workspace) return [...free, { type: 'prepare-workspace' }];
  const unlisted = state.taskOrder.filter((k) => !state.tasks[k].teamTaskId);
  const listed: RunAction[] = unlisted.length ? [{ type: 'create-team-tasks', keys: unlisted }] : [];
  return [...free, ...listed, ...(escalations(state) ?? phaseActions(state))];
}
