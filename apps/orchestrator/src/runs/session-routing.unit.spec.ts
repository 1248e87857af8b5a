import { foldEvents } from '@headspace/event-store';
import type { AgentSnapshot, RoutingDecision, RunTask, TaskSignals } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
// The governor's pure router, to show which tier and effort these signals lead to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { capEffort, effortForSignals, tierForSignals } from '../../../cost-governor/src/routing/model-router';
import { runDecider, type RunCommand, type RunEvent, type RunState } from './run.decider';
import { runView } from './run-view';
import { fallbackRouting, MODEL_FOR, routedSession, runSessionSignals, sessionRouteRequest, usesRunAgent, type SessionToRoute } from './session-routing';

const now = '2026-11-27T10:00:00.000Z';
const runId = 'r1';
const roster = { pools: { workshop: ['robbo'], pm: ['gavin'], backend: ['con', 'may'], qa: ['verner'], review: ['robbo'] }, names: {} };
const limits = { maxQaRounds: 3, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 };
const task = (key: string, subject: string, over: Partial<RunTask> = {}): RunTask => ({ key, subject, description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: [], ...over });
const TRIVIAL = task('T1', 'Fix the typo in README.md');
const RISKY = task('T2', 'Refactor the auth token checks', { description: 'Move the checks in src/auth/token.ts and src/auth/session.ts behind one function; this is security code.', dependsOn: ['T1'] });
const REVIEWER: AgentSnapshot = { name: 'reviewer', scope: 'project', source: '/p/.headspace/agents/reviewer.md', systemPrompt: 'You review code.', model: 'claude-haiku-4-5', tools: ['Read', 'Grep'], maxTurns: 5 };

type StartedData = Omit<Extract<RunEvent, { type: 'run.started' }>['data'], 'startedAt'>;
const stateOf = (over: Partial<StartedData> = {}, more: RunCommand[] = []): RunState => {
  const start: RunCommand = { type: 'start-run', runId, team: 'red', goal: 'g', title: 't', source: '/s', mode: 'v1', operator: 'auto', limits, roster, tasks: [TRIVIAL, RISKY], simulated: true, now, ...over };
  let events: RunEvent[] = runDecider.decide(start, runDecider.initialState());
  // The operator's tasks, as accepting the spec of a v1 run adds them.
  events.push({ type: 'run.tasks-added', data: { runId, tasks: [TRIVIAL, RISKY].map((t) => ({ ...t, origin: 'plan' as const })), at: now } });
  for (const command of more) events = [...events, ...runDecider.decide(command, foldEvents(runDecider, events))];
  return foldEvents(runDecider, events);
};

/** Which tier and effort the governor's router gives these signals (no pins, no budget pressure). */
const routed = (signals: TaskSignals) => {
  const tier = tierForSignals(signals).tier;
  return { tier, effort: capEffort(effortForSignals(signals), tier) };
};
const session = (purpose: SessionToRoute['purpose'], over: Partial<SessionToRoute> = {}): SessionToRoute => ({ purpose, attempt: 1, ...over });

describe('run session signals', () => {
  it('a trivial task routes to the light model at quick effort; a risky, deeper one to opus at deep effort', () => {
    const state = stateOf();
    const trivial = runSessionSignals(state, session('task', { taskKey: 'T1' }));
    expect(trivial.signals).toMatchObject({ filesAffected: 1, requiresReasoning: false, isExploration: false, dependencyDepth: 0 });
    expect(trivial.reasons).toEqual(['task T1', 'names 1 file: README.md']);
    expect(routed(trivial.signals)).toEqual({ tier: 'haiku', effort: 'quick' });

    const risky = runSessionSignals(state, session('task', { taskKey: 'T2' }));
    expect(risky.signals).toMatchObject({ filesAffected: 2, requiresReasoning: true, dependencyDepth: 1 });
    expect(risky.reasons).toEqual(expect.arrayContaining(['risky work: refactor, auth, security', 'dependency depth 1']));
    expect(routed(risky.signals)).toEqual({ tier: 'opus', effort: 'deep' });
  });

  it('phases keep their weight: the workshop leads on opus at deep effort, review and escalations on opus, decomposition and QA on sonnet', () => {
    const state = stateOf();
    expect(routed(runSessionSignals(state, session('workshop', { round: 1 })).signals)).toEqual({ tier: 'opus', effort: 'deep' });
    expect(routed(runSessionSignals(state, session('review')).signals)).toEqual({ tier: 'opus', effort: 'standard' });
    expect(routed(runSessionSignals(state, session('escalation')).signals)).toEqual({ tier: 'opus', effort: 'standard' });
    expect(routed(runSessionSignals(state, session('decompose')).signals)).toEqual({ tier: 'sonnet', effort: 'standard' });
    expect(routed(runSessionSignals(state, session('qa', { round: 2 })).signals)).toEqual({ tier: 'sonnet', effort: 'standard' });
  });

  it('a second attempt at a task needs reasoning: the retry goes to a stronger model than the first', () => {
    const state = stateOf();
    const second = runSessionSignals(state, session('task', { taskKey: 'T1', attempt: 2 }));
    expect(second.reasons).toContain('attempt 2: the earlier one did not finish');
    expect(routed(second.signals).tier).toBe('opus');
  });

  it('is deterministic: the same run state asks the same question for the same session', () => {
    const a = sessionRouteRequest(stateOf(), session('task', { taskKey: 'T2' }));
    const b = sessionRouteRequest(stateOf(), session('task', { taskKey: 'T2' }));
    expect(a).toEqual(b);
    expect(a.pinnedBy).toBeUndefined();
  });
});

describe('pins', () => {
  it("the operator's pin applies to every session of the run, recorded as the operator's", () => {
    const state = stateOf({ model: 'sonnet', effort: 'standard' });
    for (const s of [session('workshop'), session('task', { taskKey: 'T1' }), session('review')]) {
      expect(sessionRouteRequest(state, s)).toMatchObject({ model: 'sonnet', effort: 'standard', pinnedBy: 'operator' });
    }
  });

  it("the run's agent pins its build sessions to its model; other sessions and a fix run's regression task still route", () => {
    const state = stateOf({ agent: REVIEWER });
    expect(usesRunAgent(state, session('task', { taskKey: 'T1' }))).toBe(true);
    expect(sessionRouteRequest(state, session('task', { taskKey: 'T1' }))).toMatchObject({ model: 'claude-haiku-4-5', pinnedBy: 'agent', reasons: expect.arrayContaining(['agent reviewer']) });
    expect(sessionRouteRequest(state, session('qa'))).not.toHaveProperty('pinnedBy');
    const fix = stateOf({ agent: REVIEWER, fix: { groupId: 'g1', testCommand: 'npm test', regressionTaskKey: 'T1' } });
    expect(usesRunAgent(fix, session('task', { taskKey: 'T1' }))).toBe(false);
    expect(usesRunAgent(stateOf({ agent: { ...REVIEWER, model: 'inherit' } }), session('task', { taskKey: 'T1' }))).toBe(true);
    expect(sessionRouteRequest(stateOf({ agent: { ...REVIEWER, model: 'inherit' } }), session('task', { taskKey: 'T1' }))).not.toHaveProperty('pinnedBy');
  });
});

describe('the routing record', () => {
  const decision: RoutingDecision = { model: 'claude-haiku-4-5', tier: 'haiku', batch: false, effort: 'quick', thinkingBudgetTokens: 2_000, speed: 'standard', reasons: ['single-file task without reasoning → haiku'] };

  it("keeps the session's reasons before the governor's", () => {
    const req = sessionRouteRequest(stateOf(), session('task', { taskKey: 'T1' }));
    expect(routedSession(decision, req)).toEqual({
      model: 'claude-haiku-4-5',
      tier: 'haiku',
      effort: 'quick',
      thinkingBudgetTokens: 2_000,
      reasons: ['task T1', 'names 1 file: README.md', 'single-file task without reasoning → haiku'],
      signals: req.signals,
      pinned: false,
    });
  });

  it('falls back to the purpose default (or the pin) when the governor does not answer, and says so', () => {
    const req = sessionRouteRequest(stateOf(), session('workshop'));
    expect(fallbackRouting('workshop', req, 'MESSAGING.NO_RESPONDERS')).toMatchObject({ ...MODEL_FOR.workshop, tier: 'opus', fallback: true, pinned: false, reasons: expect.arrayContaining(['cost governor did not answer (MESSAGING.NO_RESPONDERS): the workshop default']) });
    const pinned = sessionRouteRequest(stateOf({ model: 'claude-haiku-4-5' }), session('task', { taskKey: 'T1' }));
    expect(fallbackRouting('task', pinned, 'MESSAGING.TIMEOUT')).toMatchObject({ model: 'claude-haiku-4-5', tier: 'haiku', effort: 'standard', pinned: true, pinnedBy: 'operator', fallback: true });
  });

  it('is recorded with the session start, shown in the run view, and kept when the start is repeated after a crash', () => {
    const req = sessionRouteRequest(stateOf(), session('task', { taskKey: 'T1' }));
    const routing = routedSession(decision, req);
    const start: RunCommand = { type: 'start-session', runId, sessionId: 'r1.task.T1.a1', purpose: 'task', taskKey: 'T1', attempt: 1, persona: 'con', pool: 'backend', leaseId: 'l1', routing, now };
    const state = stateOf({}, [{ type: 'record-workspace', runId, dir: '/ws', branch: 'b', baseCommit: 'c', now }, start]);
    expect(state.sessions['r1.task.T1.a1'].routing).toEqual(routing);
    // A pass repeated after a crash routes again (say the governor now answers opus): the start decides nothing new, the first record stands.
    expect(runDecider.decide({ ...start, routing: { ...routing, model: 'claude-opus-4-6', tier: 'opus' } }, state)).toEqual([]);
    expect(runView(state).sessions).toEqual([{ sessionId: 'r1.task.T1.a1', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, agent: null, routing, ended: false }]);
  });
});
