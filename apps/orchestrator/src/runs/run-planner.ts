import { AUTO_OPERATOR, qaMergeKey, type RunSessionState, type RunState, type SessionPurpose } from './run.decider';

/** What the reconciler should do next for a run. Every action is safe to repeat. */
export type RunAction =
  | { type: 'prepare-workspace' }
  | { type: 'start-session'; sessionId: string; purpose: SessionPurpose; persona: string; taskKey?: string; round?: number; attempt: number }
  | { type: 'merge'; taskKey: string; persona: string }
  | { type: 'answer-escalation'; escalationId: string; answer: 'continue'; by: string }
  | { type: 'complete' }
  | { type: 'fail'; reason: string };

/** Attempts a phase session (workshop, decomposition, QA, review) gets before the run fails. */
export const PHASE_SESSION_ATTEMPTS = 2;

const NON_EXECUTION_POOLS = new Set(['workshop', 'architecture', 'review', 'pm', 'qa', 'ops']);

export const sessionIdFor = (runId: string, purpose: SessionPurpose, step: string, attempt: number) => `${runId}.${purpose}.${step}.a${attempt}`;
/** Session ids start with the run id (which has no dots), so a session event names its run. */
export const runIdOfSession = (sessionId: string): string | undefined => (/^([a-z0-9][a-z0-9-]*)\.(workshop|decompose|task|qa|review)\./.exec(sessionId) ?? [])[1];

const sessionsOf = (state: RunState, purpose: SessionPurpose, match: (s: RunSessionState) => boolean = () => true) =>
  Object.values(state.sessions).filter((s) => s.purpose === purpose && match(s));
const active = (state: RunState) => Object.values(state.sessions).filter((s) => !s.ended);
const busyPersonas = (state: RunState) => new Set(active(state).map((s) => s.persona));

function firstOf(state: RunState, pool: string, fallback: string): string {
  return state.started?.roster.pools[pool]?.[0] ?? fallback;
}

/** A phase step (e.g. QA round 2) gets a new session while earlier attempts ended without output. */
function phaseSession(state: RunState, purpose: SessionPurpose, step: string, persona: string, round?: number): RunAction[] {
  const previous = sessionsOf(state, purpose, (s) => s.sessionId.startsWith(`${state.started!.runId}.${purpose}.${step}.`));
  if (previous.some((s) => !s.ended)) return [];
  if (previous.length >= PHASE_SESSION_ATTEMPTS) {
    return [{ type: 'fail', reason: `${purpose} ${step} produced no usable output after ${previous.length} sessions` }];
  }
  const attempt = previous.length + 1;
  return [{ type: 'start-session', sessionId: sessionIdFor(state.started!.runId, purpose, step, attempt), purpose, persona, attempt, ...(round ? { round } : {}) }];
}

/** Personas who build: members of execution pools (not Robbo, Gavin, Verner or Leon's pools). */
function executionPools(state: RunState): Record<string, string[]> {
  return Object.fromEntries(Object.entries(state.started!.roster.pools).filter(([pool]) => !NON_EXECUTION_POOLS.has(pool)));
}

/**
 * Who takes a task: its author first when free (a QA fix or merge conflict goes back to whoever
 * wrote the code), else the first free persona of the task's pool in pool order (FIFO); a task
 * whose skill domain has no pool is cross-cutting and goes to the generalist — the builder in the
 * most pools. Nobody free → it waits (pool exhaustion).
 */
export function choosePersona(state: RunState, pool: string, author: string | undefined, busy: Set<string>): string | undefined {
  if (author && !busy.has(author)) return author;
  const pools = executionPools(state);
  const members = pools[pool] ?? generalists(pools);
  return members.find((p) => !busy.has(p));
}

function generalists(pools: Record<string, string[]>): string[] {
  const counts = new Map<string, number>();
  for (const members of Object.values(pools)) for (const p of members) counts.set(p, (counts.get(p) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([p]) => p);
}

function execution(state: RunState): RunAction[] {
  const started = state.started!;
  const actions: RunAction[] = [];
  for (const key of state.taskOrder) {
    const t = state.tasks[key];
    if (t.status === 'done') actions.push({ type: 'merge', taskKey: key, persona: t.persona! });
  }
  if (actions.length) return actions; // merge before starting dependants: they build on the merged work
  const busy = busyPersonas(state);
  let running = active(state).length;
  for (const key of state.taskOrder) {
    const t = state.tasks[key];
    if (t.status !== 'pending' || running >= started.limits.maxConcurrentAgents) continue;
    if (!t.task.dependsOn.every((d) => ['merged', 'skipped'].includes(state.tasks[d]?.status ?? ''))) continue;
    const persona = choosePersona(state, t.task.pool, t.task.author ?? (t.attempts > 0 ? t.persona : undefined), busy);
    if (!persona) continue;
    busy.add(persona);
    running++;
    const attempt = t.attempts + 1;
    actions.push({ type: 'start-session', sessionId: sessionIdFor(started.runId, 'task', key, attempt), purpose: 'task', persona, taskKey: key, attempt });
  }
  return actions;
}

export function nextActions(state: RunState): RunAction[] {
  if (state.status !== 'active' || !state.started) return [];
  const started = state.started;
  if (!state.workspace) return [{ type: 'prepare-workspace' }];

  const open = Object.entries(state.escalations).filter(([, e]) => !e.answer);
  if (open.length) {
    return started.operator === 'auto' ? open.map(([escalationId]) => ({ type: 'answer-escalation' as const, escalationId, answer: 'continue' as const, by: AUTO_OPERATOR })) : [];
  }
  const unmergedQa = state.qaReports.find((r) => !r.merged);
  if (unmergedQa) return [{ type: 'merge', taskKey: qaMergeKey(unmergedQa.round), persona: firstOf(state, 'qa', 'verner') }];

  switch (state.phase) {
    case 'workshop': {
      if (state.pendingQuestions) return []; // the operator answers
      const round = state.answers.length + 1;
      if (round > started.limits.maxWorkshopRounds) return [{ type: 'fail', reason: `No spec after ${started.limits.maxWorkshopRounds} workshop rounds` }];
      return phaseSession(state, 'workshop', `r${round}`, firstOf(state, 'workshop', 'robbo'), round);
    }
    case 'spec-review':
    case 'tasks-review':
      return []; // the operator accepts or edits
    case 'decomposition':
      return phaseSession(state, 'decompose', 'plan', firstOf(state, 'pm', 'gavin'));
    case 'execution':
      return execution(state);
    case 'qa': {
      const last = state.qaReports.at(-1);
      const round = last && last.round >= state.qaRounds ? last.round + 1 : Math.max(1, state.qaRounds);
      return phaseSession(state, 'qa', `r${round}`, firstOf(state, 'qa', 'verner'), round);
    }
    case 'review':
      if (state.review) return [{ type: 'complete' }];
      return phaseSession(state, 'review', 'final', firstOf(state, 'review', 'robbo'));
    default:
      return [];
  }
}
