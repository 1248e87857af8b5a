import { foldEvents } from '@headspace/event-store';
import type { RunTask } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { runDecider, type RunCommand, type RunEvent, type RunState } from './run.decider';
import { MAX_PLAN_DRAFTS, nextActions, poolFor, runIdOfSession, sessionIdFor, type RunAction } from './run-planner';
import type { PhaseOutput } from './run-output';

const now = '2026-11-24T10:00:00.000Z';
const runId = 'r1';
const roster = { pools: { workshop: ['robbo'], architecture: ['robbo'], pm: ['gavin'], backend: ['con', 'may', 'mark'], frontend: ['al', 'mark'], integration: ['mark'], qa: ['verner'], review: ['robbo'] }, names: {} };
const limits = { maxQaRounds: 3, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 };
const spec = { goal: 'Add topWords', acceptanceCriteria: ['ties alphabetical'], constraints: [], outOfScope: [] };
const t1: RunTask = { key: 'T1', subject: 'Add topWords', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: [] };
const t2: RunTask = { key: 'T2', subject: 'Add the CLI', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: ['T1'] };
const t3: RunTask = { key: 'T3', subject: 'Docs', description: '', pool: 'frontend', acceptanceCriteria: [], dependsOn: [] };

type StartAction = Extract<RunAction, { type: 'start-session' }>;
type Started = StartAction & { persona: string };
type Script = (session: Started, state: RunState) => PhaseOutput;
type StartedData = Extract<RunEvent, { type: 'run.started' }>['data'];

const startedEvent = (over: Partial<StartedData> = {}): RunEvent => ({
  type: 'run.started',
  data: { runId, team: 'red', goal: 'g', title: 't', source: '/s', mode: 'v3', operator: 'auto', limits, roster, simulated: true, startedAt: now, ...over },
});

/**
 * Drives a run with the planner and the decider alone. Personas come from a stand-in for the
 * team-manager's pools (affinity first, then pool order, three leases at most); sessions answer
 * from `script` at the end of the step that started them.
 */
function drive(start: Partial<StartedData>, script: Script, options: { maxSteps?: number; merge?: (key: string) => 'merged' | 'conflict'; maxLeases?: number } = {}) {
  let events: RunEvent[] = [startedEvent(start)];
  const leases = new Map<string, string>();
  const sessions: Started[] = [];
  const state = () => foldEvents(runDecider, events);
  const record = (command: RunCommand) => {
    events = [...events, ...runDecider.decide(command, state())];
  };
  const grant = (pool: string, affinity?: string) => {
    if (leases.size >= (options.maxLeases ?? 3)) return undefined;
    const busy = new Set(leases.values());
    const free = (roster.pools[pool as keyof typeof roster.pools] ?? []).filter((p) => !busy.has(p));
    return affinity && free.includes(affinity) ? affinity : free[0];
  };
  for (let step = 0; step < (options.maxSteps ?? 100); step++) {
    const before = events.length;
    for (const action of nextActions(state())) {
      switch (action.type) {
        case 'prepare-workspace':
          record({ type: 'record-workspace', runId, dir: '/ws', branch: 'headspace/r1/main', baseCommit: 'base', now });
          break;
        case 'release-persona':
          leases.delete(action.leaseId);
          record({ type: 'record-persona-released', runId, sessionId: action.sessionId, now });
          break;
        case 'create-team-tasks':
          record({ type: 'record-tasks-created', runId, team: 'red', tasks: action.keys.map((key) => ({ key, taskId: `tm-${key}` })), now });
          break;
        case 'start-session': {
          const persona = grant(action.pool, action.affinity);
          if (!persona) {
            record({ type: 'record-persona-queued', runId, sessionId: action.sessionId, purpose: action.purpose, pool: action.pool, requestId: `req-${action.sessionId}`, position: 1, now });
            break;
          }
          leases.set(`lease-${action.sessionId}`, persona);
          sessions.push({ ...action, persona });
          const { type: _t, affinity, ...rest } = action;
          record({ ...rest, type: 'start-session', runId, persona, leaseId: `lease-${action.sessionId}`, affinity: affinity === persona, now });
          break;
        }
        case 'merge':
          record({ type: 'record-merge', runId, taskKey: action.taskKey, result: options.merge?.(action.taskKey) === 'conflict' ? { status: 'conflict', files: ['a.js'] } : { status: 'merged', commit: 'c', files: [] }, now });
          break;
        case 'answer-escalation':
          record({ type: 'answer-escalation', runId, escalationId: action.escalationId, answer: action.answer, by: action.by, now });
          break;
        case 'complete':
          record({ type: 'complete-run', runId, headCommit: 'head', now });
          break;
        case 'fail':
          record({ type: 'fail-run', runId, reason: action.reason, now });
          break;
        case 'check-approval':
          break;
      }
    }
    for (const s of sessions.filter((x) => state().sessions[x.sessionId] && !state().sessions[x.sessionId].ended)) {
      record({ type: 'record-session-outcome', runId, sessionId: s.sessionId, exitReason: 'completed', summary: `${s.persona} done`, output: script(s, state()), files: [], now });
    }
    if (events.length === before) break;
  }
  return { state: state(), events, sessions, leases };
}

const happy: Script = (s, state) => {
  switch (s.purpose) {
    case 'workshop':
      return state.answers.length ? { kind: 'spec', spec } : { kind: 'questions', questions: ['Ties?'] };
    case 'decompose':
      return { kind: 'tasks', tasks: [t1, t2] };
    case 'task':
      return { kind: 'task', status: 'completed' };
    case 'qa':
      return s.round === 1
        ? { kind: 'qa', passed: false, failures: [{ test: 'n=0', message: 'no RangeError', decision: 'send-back', taskKey: 'T1', details: 'throw RangeError for n=0' }] }
        : { kind: 'qa', passed: true, failures: [] };
    case 'review':
      return { kind: 'review', verdict: 'done', report: 'good', issues: [] };
    case 'escalation':
      return { kind: 'escalation', decision: 'continue' };
  }
};
const qaPasses: Script = (s, st) => (s.purpose === 'qa' ? { kind: 'qa', passed: true, failures: [] } : happy(s, st));
const stateOf = (events: RunEvent[]): RunState => foldEvents(runDecider, events);
const executing = (tasks: RunTask[], over: Partial<StartedData> = {}): RunEvent[] => [
  startedEvent({ mode: 'v1', tasks, ...over }),
  { type: 'run.workspace-prepared', data: { runId, dir: '/ws', branch: 'b', baseCommit: 'c', at: now } },
  { type: 'run.spec-drafted', data: { runId, spec, at: now } },
  { type: 'run.spec-accepted', data: { runId, by: 'operator', at: now } },
  { type: 'run.tasks-added', data: { runId, tasks: tasks.map((t) => ({ ...t, origin: 'plan' as const })), at: now } },
  { type: 'run.tasks-created', data: { runId, team: 'red', tasks: tasks.map((t) => ({ key: t.key, taskId: `tm-${t.key}` })), at: now } },
];
const starts = (state: RunState) => nextActions(state).filter((a): a is StartAction => a.type === 'start-session');

describe('run planner', () => {
  it('a v3 run goes workshop → spec → decomposition → execution in dependency order → QA sends a failure back → fix → QA passes → review → completed', () => {
    const { state, events, sessions, leases } = drive({}, happy);
    expect(state.status).toBe('completed');
    expect(sessions.map((s) => `${s.purpose}:${s.persona}${s.taskKey ? `:${s.taskKey}` : ''}`)).toEqual([
      'workshop:robbo',
      'workshop:robbo',
      'decompose:gavin',
      'task:con:T1',
      'task:con:T2',
      'qa:verner',
      'task:con:F1-1',
      'qa:verner',
      'review:robbo',
    ]);
    const merged = events.filter((e): e is Extract<RunEvent, { type: 'run.task-merged' }> => e.type === 'run.task-merged').map((e) => e.data.taskKey);
    expect(merged).toEqual(['T1', 'T2', 'qa-r1', 'F1-1', 'qa-r2']);
    expect(leases.size).toBe(0);
  });

  it('every planned task is put on the team’s task list before any of them starts', () => {
    const { events } = drive({ mode: 'v1', tasks: [t1, t2] }, qaPasses);
    const types = events.map((e) => e.type);
    expect(types.indexOf('run.tasks-created')).toBeLessThan(types.findIndex((t, i) => t === 'run.session-started' && (events[i].data as { purpose: string }).purpose === 'task'));
  });

  it('a v1 run builds the operator’s tasks without a decomposition session, independent tasks of different pools side by side', () => {
    const { state, sessions } = drive({ mode: 'v1', tasks: [t1, t3] }, qaPasses);
    expect(state.status).toBe('completed');
    expect(sessions.some((s) => s.purpose === 'decompose')).toBe(false);
    expect(sessions.filter((s) => s.purpose === 'task').map((s) => `${s.taskKey}:${s.persona}`)).toEqual(['T1:con', 'T3:al']);
  });

  it('an interactive run waits for the operator at Robbo’s questions', () => {
    const { state } = drive({ operator: 'interactive' }, happy);
    expect(state.pendingQuestions?.questions).toEqual(['Ties?']);
    expect(nextActions(state)).toEqual([]);
  });

  it('a v2 proposal waiting on a plan-approval is checked on every pass', () => {
    const state = stateOf([
      startedEvent({ mode: 'v2', operator: 'interactive' }),
      { type: 'run.workspace-prepared', data: { runId, dir: '/ws', branch: 'b', baseCommit: 'c', at: now } },
      { type: 'run.spec-drafted', data: { runId, spec, at: now } },
      { type: 'run.spec-accepted', data: { runId, by: 'operator', at: now } },
      { type: 'run.tasks-proposed', data: { runId, tasks: [t1], by: 'gavin', approvalId: 'ap-1', at: now } },
    ]);
    expect(nextActions(state)).toEqual([{ type: 'check-approval', approvalId: 'ap-1' }]);
  });

  it('Gavin drafts again after a rejection, and the run fails once the operator has turned down the last allowed draft', () => {
    const base: RunEvent[] = [
      startedEvent({ mode: 'v2', operator: 'interactive' }),
      { type: 'run.workspace-prepared', data: { runId, dir: '/ws', branch: 'b', baseCommit: 'c', at: now } },
      { type: 'run.spec-drafted', data: { runId, spec, at: now } },
      { type: 'run.spec-accepted', data: { runId, by: 'operator', at: now } },
    ];
    const rejected = (n: number): RunEvent[] =>
      Array.from({ length: n }, () => [
        { type: 'run.tasks-proposed', data: { runId, tasks: [t1], by: 'gavin', at: now } } as RunEvent,
        { type: 'run.tasks-rejected', data: { runId, by: 'operator', reason: 'too coarse', at: now } } as RunEvent,
      ]).flat();
    expect(starts(stateOf([...base, ...rejected(1)]))).toEqual([expect.objectContaining({ sessionId: sessionIdFor(runId, 'decompose', 'd2', 1), pool: 'pm' })]);
    expect(nextActions(stateOf([...base, ...rejected(MAX_PLAN_DRAFTS)]))).toEqual([{ type: 'fail', reason: `The operator turned down ${MAX_PLAN_DRAFTS} drafts of the plan` }]);
  });

  it('never runs more of the run’s agents than its concurrency limit', () => {
    const many = Array.from({ length: 6 }, (_, i): RunTask => ({ ...t1, key: `T${i + 1}`, dependsOn: [] }));
    const state = stateOf([
      ...executing(many, { limits: { ...limits, maxConcurrentAgents: 2 } }),
      { type: 'run.session-started', data: { runId, sessionId: 'busy', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, at: now } },
    ]);
    expect(starts(state)).toEqual([expect.objectContaining({ taskKey: 'T2', pool: 'backend' })]);
  });

  it('a session waiting for a persona is asked for again under the same session id until the pool grants one', () => {
    const t4 = { ...t3, pool: 'backend', key: 'T4' };
    const { state, events, sessions } = drive({ mode: 'v1', tasks: [t1, t4] }, qaPasses, { maxLeases: 1 });
    const t4Session = sessionIdFor(runId, 'task', 'T4', 1);
    const queuedAt = events.findIndex((e) => e.type === 'run.persona-queued' && e.data.sessionId === t4Session);
    expect(queuedAt).toBeGreaterThan(0);
    expect(starts(stateOf(events.slice(0, queuedAt + 1)))).toEqual([expect.objectContaining({ sessionId: t4Session, pool: 'backend' })]);
    expect(state.status).toBe('completed');
    expect(sessions.filter((s) => s.purpose === 'task').map((s) => s.sessionId)).toEqual([sessionIdFor(runId, 'task', 'T1', 1), t4Session]);
    expect(state.queued).toEqual({});
  });

  it('a retried or fixed task prefers its earlier persona, and a task with no pool of its own goes to the generalist', () => {
    const state = stateOf(executing([t1, { ...t1, key: 'X', pool: 'ml-ops' }]));
    expect(poolFor(state, state.tasks.T1)).toEqual({ pool: 'backend' });
    expect(poolFor(state, { ...state.tasks.T1, attempts: 1, persona: 'may' })).toEqual({ pool: 'backend', affinity: 'may' });
    expect(poolFor(state, { ...state.tasks.T1, task: { ...state.tasks.T1.task, author: 'con' } })).toEqual({ pool: 'backend', affinity: 'con' });
    expect(poolFor(state, state.tasks.X)).toEqual({ pool: 'backend', affinity: 'mark' });
  });

  it('a phase session that keeps producing no usable output fails the run instead of looping', () => {
    const { state } = drive({}, (s, st) => (s.purpose === 'decompose' ? { kind: 'invalid', error: 'no tasks' } : happy(s, st)));
    expect(state.status).toBe('failed');
    expect(state.failure).toMatch(/decompose d1 produced no usable output after 2 sessions/);
  });

  it('a merge conflict sends the work back to its author, and the task’s dependants wait for the conflict task', () => {
    let conflicted = false;
    const { state, sessions } = drive({ mode: 'v1', tasks: [t1, t2] }, qaPasses, {
      merge: (key) => (key === 'T1' && !conflicted ? ((conflicted = true), 'conflict') : 'merged'),
    });
    expect(state.status).toBe('completed');
    expect(sessions.filter((s) => s.purpose === 'task').map((s) => `${s.taskKey}:${s.persona}`)).toEqual(['T1:con', 'C-T1:con', 'T2:con']);
  });

  it('an escalation to Gavin gets a session of Gavin from the pm pool; one to the operator waits in an interactive run and is continued by the auto operator', () => {
    const escalated = (to: 'gavin' | 'operator'): RunEvent => ({ type: 'run.escalated', data: { runId, escalationId: 'T1-attempts', from: 'con', to, subject: 'T1 failed twice', details: '', about: 'T1', at: now } });
    expect(nextActions(stateOf([...executing([t1], { mode: 'v3' }), escalated('gavin')]))).toEqual([
      { type: 'start-session', sessionId: sessionIdFor(runId, 'escalation', 'T1-attempts', 1), purpose: 'escalation', pool: 'pm', affinity: 'gavin', escalationId: 'T1-attempts', attempt: 1 },
    ]);
    expect(nextActions(stateOf([...executing([t1], { operator: 'interactive' }), escalated('operator')]))).toEqual([]);
    expect(nextActions(stateOf([...executing([t1]), escalated('operator')]))).toEqual([{ type: 'answer-escalation', escalationId: 'T1-attempts', answer: 'continue', by: 'auto-operator' }]);
  });

  it('ended sessions give their persona back, even after the run has failed', () => {
    const state = stateOf([
      ...executing([t1]),
      { type: 'run.session-started', data: { runId, sessionId: 's1', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, leaseId: 'L1', at: now } },
      { type: 'run.failed', data: { runId, reason: 'stopped', at: now } },
      { type: 'run.session-ended', data: { runId, sessionId: 's1', exitReason: 'completed', summary: '', at: now } },
    ]);
    expect(nextActions(state)).toEqual([{ type: 'release-persona', sessionId: 's1', leaseId: 'L1' }]);
  });

  it('session ids name their run so session events can be routed back', () => {
    expect(runIdOfSession(sessionIdFor('r-42', 'task', 'T1', 2))).toBe('r-42');
    expect(runIdOfSession(sessionIdFor('r-42', 'escalation', 'qa-r1-spec', 1))).toBe('r-42');
    expect(runIdOfSession('plain-session')).toBeUndefined();
  });
});
