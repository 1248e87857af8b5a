import { foldEvents } from '@headspace/event-store';
import type { RunTask } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { runDecider, type RunCommand, type RunEvent, type RunState } from './run.decider';
import { choosePersona, nextActions, runIdOfSession, sessionIdFor, type RunAction } from './run-planner';
import type { PhaseOutput } from './run-output';

const now = '2026-11-24T10:00:00.000Z';
const runId = 'r1';
const roster = { pools: { workshop: ['robbo'], pm: ['gavin'], backend: ['con', 'may', 'mark'], frontend: ['al', 'mark'], integration: ['mark'], qa: ['verner'], review: ['robbo'] }, names: {} };
const limits = { maxQaRounds: 3, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 };
const spec = { goal: 'Add topWords', acceptanceCriteria: ['ties alphabetical'], constraints: [], outOfScope: [] };
const t1: RunTask = { key: 'T1', subject: 'Add topWords', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: [] };
const t2: RunTask = { key: 'T2', subject: 'Add the CLI', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: ['T1'] };
const t3: RunTask = { key: 'T3', subject: 'Docs', description: '', pool: 'frontend', acceptanceCriteria: [], dependsOn: [] };

type Script = (action: Extract<RunAction, { type: 'start-session' }>, state: RunState) => PhaseOutput;

/** Drives a run with the planner and the decider only: sessions answer from `script` at once. */
function drive(start: Partial<Extract<RunEvent, { type: 'run.started' }>['data']>, script: Script, options: { maxSteps?: number; merge?: (key: string) => 'merged' | 'conflict' } = {}) {
  let events: RunEvent[] = [{ type: 'run.started', data: { runId, team: 'red', goal: 'g', title: 't', source: '/s', mode: 'v3', operator: 'auto', limits, roster, simulated: true, startedAt: now, ...start } }];
  const sessions: Array<Extract<RunAction, { type: 'start-session' }>> = [];
  const record = (command: RunCommand) => {
    const state = foldEvents(runDecider, events);
    events = [...events, ...runDecider.decide(command, state)];
  };
  for (let step = 0; step < (options.maxSteps ?? 100); step++) {
    const state = foldEvents(runDecider, events);
    const actions = nextActions(state);
    if (actions.length === 0) break;
    for (const action of actions) {
      switch (action.type) {
        case 'prepare-workspace':
          record({ type: 'record-workspace', runId, dir: '/ws', branch: 'headspace/r1/main', baseCommit: 'base', now });
          break;
        case 'start-session':
          sessions.push(action);
          record({ ...action, type: 'start-session', runId, now });
          break;
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
      }
    }
    // Sessions started in this step finish before the next one (in start order).
    for (const s of sessions.filter((x) => !foldEvents(runDecider, events).sessions[x.sessionId]?.ended)) {
      record({ type: 'record-session-outcome', runId, sessionId: s.sessionId, exitReason: 'completed', summary: `${s.persona} done`, output: script(s, foldEvents(runDecider, events)), files: [], now });
    }
  }
  return { state: foldEvents(runDecider, events), events, sessions };
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
  }
};

describe('run planner', () => {
  it('a v3 run goes workshop → spec → decomposition → execution in dependency order → QA sends a failure back → fix → QA passes → review → completed', () => {
    const { state, events, sessions } = drive({}, happy);
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
    const types = events.map((e) => e.type);
    expect(types.indexOf('run.task-merged')).toBeLessThan(types.indexOf('run.qa-reported'));
    expect(events.filter((e) => e.type === 'run.task-merged').map((e) => (e as Extract<RunEvent, { type: 'run.task-merged' }>).data.taskKey)).toEqual(['T1', 'T2', 'qa-r1', 'F1-1', 'qa-r2']);
  });

  it('a v1 run builds the operator’s tasks without a decomposition session', () => {
    const { state, sessions } = drive({ mode: 'v1', tasks: [t1, t3] }, (s, st) => (s.purpose === 'qa' ? { kind: 'qa', passed: true, failures: [] } : happy(s, st)));
    expect(state.status).toBe('completed');
    expect(sessions.some((s) => s.purpose === 'decompose')).toBe(false);
    // Independent tasks of different pools run side by side.
    expect(sessions.filter((s) => s.purpose === 'task').map((s) => `${s.taskKey}:${s.persona}`)).toEqual(['T1:con', 'T3:al']);
  });

  it('an interactive run waits for the operator at questions, spec and (v2) tasks', () => {
    const { state } = drive({ operator: 'interactive' }, happy);
    expect(state.phase).toBe('workshop');
    expect(state.pendingQuestions?.questions).toEqual(['Ties?']);
    expect(nextActions(state)).toEqual([]);
  });

  it('never runs more agents than the concurrency limit, and each persona on one task at a time', () => {
    const many = Array.from({ length: 6 }, (_, i): RunTask => ({ ...t1, key: `T${i + 1}`, dependsOn: [] }));
    const state = foldEvents(runDecider, [
      { type: 'run.started', data: { runId, team: 'red', goal: 'g', title: 't', source: '/s', mode: 'v1', operator: 'auto', limits: { ...limits, maxConcurrentAgents: 2 }, roster, tasks: many, simulated: true, startedAt: now } },
      { type: 'run.workspace-prepared', data: { runId, dir: '/ws', branch: 'b', baseCommit: 'c', at: now } },
      { type: 'run.spec-drafted', data: { runId, spec, at: now } },
      { type: 'run.spec-accepted', data: { runId, by: 'operator', at: now } },
      { type: 'run.tasks-added', data: { runId, tasks: many.map((t) => ({ ...t, origin: 'plan' as const })), at: now } },
      { type: 'run.session-started', data: { runId, sessionId: 'busy', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, at: now } },
    ] as RunEvent[]);
    const starts = nextActions(state).filter((a) => a.type === 'start-session');
    expect(starts).toEqual([expect.objectContaining({ taskKey: 'T2', persona: 'may' })]);
  });

  it('a phase session that keeps producing no usable output fails the run instead of looping', () => {
    const { state } = drive({}, (s, st) => (s.purpose === 'decompose' ? { kind: 'invalid', error: 'no tasks' } : happy(s, st)));
    expect(state.status).toBe('failed');
    expect(state.failure).toMatch(/decompose plan produced no usable output after 2 sessions/);
  });

  it('a merge conflict sends the work back to its author as a conflict task', () => {
    let conflicted = false;
    const { state, sessions } = drive({ mode: 'v1', tasks: [t1] }, (s, st) => (s.purpose === 'qa' ? { kind: 'qa', passed: true, failures: [] } : happy(s, st)), {
      merge: (key) => (key === 'T1' && !conflicted ? ((conflicted = true), 'conflict') : 'merged'),
    });
    expect(state.status).toBe('completed');
    expect(sessions.filter((s) => s.purpose === 'task').map((s) => `${s.taskKey}:${s.persona}`)).toEqual(['T1:con', 'C-T1:con']);
  });

  it('a cross-cutting task with no matching pool goes to the generalist', () => {
    const state = drive({ mode: 'v1', tasks: [t1] }, happy, { maxSteps: 1 }).state;
    expect(choosePersona(state, 'ml-ops', undefined, new Set())).toBe('mark');
    expect(choosePersona(state, 'backend', 'may', new Set(['may']))).toBe('con');
  });

  it('session ids name their run so session events can be routed back', () => {
    expect(runIdOfSession(sessionIdFor('r-42', 'task', 'T1', 2))).toBe('r-42');
    expect(runIdOfSession('plain-session')).toBeUndefined();
  });
});
