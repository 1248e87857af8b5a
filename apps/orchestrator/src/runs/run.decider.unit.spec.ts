import { DeciderSpec, foldEvents } from '@headspace/event-store';
import type { RunTask } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { AUTO_ANSWER, AUTO_OPERATOR, runDecider, type RunCommand, type RunEvent, type RunState } from './run.decider';
import type { PhaseOutput } from './run-output';

const now = '2026-11-24T10:00:00.000Z';
const runId = 'r1';
const roster = { pools: { workshop: ['robbo'], pm: ['gavin'], backend: ['con', 'may', 'mark'], frontend: ['al', 'mark'], qa: ['verner'], review: ['robbo'] }, names: {} };
const limits = { maxQaRounds: 3, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 };
const spec = { goal: 'Add topWords', acceptanceCriteria: ['ties alphabetical'], constraints: [], outOfScope: [] };
const t1: RunTask = { key: 'T1', subject: 'Add topWords', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: [] };
const t2: RunTask = { key: 'T2', subject: 'Add the CLI', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: ['T1'] };

const started = (over: Partial<Extract<RunEvent, { type: 'run.started' }>['data']> = {}): RunEvent => ({
  type: 'run.started',
  data: { runId, team: 'red', goal: 'Add topWords', title: 'topWords', source: '/src', mode: 'v3', operator: 'interactive', limits, roster, simulated: true, startedAt: now, ...over },
});
const session = (sessionId: string, purpose: 'workshop' | 'decompose' | 'task' | 'qa' | 'review', persona: string, extra: { taskKey?: string; round?: number; attempt?: number } = {}): RunEvent => ({
  type: 'run.session-started',
  data: { runId, sessionId, purpose, persona, attempt: extra.attempt ?? 1, ...(extra.taskKey ? { taskKey: extra.taskKey } : {}), ...(extra.round ? { round: extra.round } : {}), at: now },
});
const outcome = (sessionId: string, output: PhaseOutput, exitReason = 'completed'): RunCommand => ({ type: 'record-session-outcome', runId, sessionId, exitReason, summary: 'done', output, files: ['src/a.js'], now });
const ended = (sessionId: string, exitReason = 'completed'): RunEvent => ({ type: 'run.session-ended', data: { runId, sessionId, exitReason, summary: 'done', at: now } });
const specAccepted: RunEvent[] = [{ type: 'run.spec-drafted', data: { runId, spec, at: now } }, { type: 'run.spec-accepted', data: { runId, by: 'operator', at: now } }];
const added = (tasks: RunTask[], origin: 'plan' | 'qa-fix' = 'plan'): RunEvent => ({ type: 'run.tasks-added', data: { runId, tasks: tasks.map((t) => ({ ...t, origin })), at: now } });
const spec_ = DeciderSpec.for(runDecider);
const codeIs = (code: string, field?: string) => (error: unknown) => (error as { code?: string }).code === code && (field === undefined || (error as { field?: string }).field === field);
const stateOf = (events: RunEvent[]): RunState => foldEvents(runDecider, events);

describe('run decider', () => {
  it('starting a run records the goal, mode, limits and roster', () => {
    const { startedAt: _s, ...data } = (started() as Extract<RunEvent, { type: 'run.started' }>).data;
    spec_.given([]).when({ type: 'start-run', ...data, now }).then([started()]);
  });

  it('a v1 run without the operator’s tasks is refused, naming the field', () => {
    const { startedAt: _s, ...data } = (started({ mode: 'v1' }) as Extract<RunEvent, { type: 'run.started' }>).data;
    spec_.given([]).when({ type: 'start-run', ...data, now }).thenThrows(codeIs('RUN.TASKS_INVALID', 'tasks'));
  });

  it('a v1 plan with a circular dependency is refused at the start', () => {
    const { startedAt: _s, ...data } = (started({ mode: 'v1' }) as Extract<RunEvent, { type: 'run.started' }>).data;
    const cyclic = [{ ...t1, dependsOn: ['T2'] }, t2];
    spec_.given([]).when({ type: 'start-run', ...data, tasks: cyclic, now }).thenThrows(codeIs('RUN.TASKS_INVALID'));
  });

  it('Robbo’s questions wait for the operator in an interactive run', () => {
    spec_
      .given([started(), session('s1', 'workshop', 'robbo', { round: 1 })])
      .when(outcome('s1', { kind: 'questions', questions: ['Which delimiter?'] }))
      .then([ended('s1'), { type: 'run.questions-asked', data: { runId, round: 1, questions: ['Which delimiter?'], at: now } }]);
  });

  it('the auto operator answers Robbo’s questions and accepts his spec, saying so', () => {
    const given = [started({ operator: 'auto' }), session('s1', 'workshop', 'robbo', { round: 1 })];
    spec_.given(given).when(outcome('s1', { kind: 'questions', questions: ['Which delimiter?'] })).then([
      ended('s1'),
      { type: 'run.questions-asked', data: { runId, round: 1, questions: ['Which delimiter?'], at: now } },
      { type: 'run.questions-answered', data: { runId, round: 1, answer: AUTO_ANSWER, by: AUTO_OPERATOR, at: now } },
    ]);
    spec_.given(given).when(outcome('s1', { kind: 'spec', spec })).then([ended('s1'), specAccepted[0], { type: 'run.spec-accepted', data: { runId, by: AUTO_OPERATOR, at: now } }]);
  });

  it('accepting a spec when none is waiting is a wrong-phase conflict', () => {
    spec_.given([started()]).when({ type: 'accept-spec', runId, by: 'operator', now }).thenThrows(codeIs('RUN.WRONG_PHASE'));
  });

  it('in v3 Gavin’s tasks are the plan; in v2 they wait for the operator', () => {
    const tasks = { kind: 'tasks' as const, tasks: [t1, t2] };
    spec_.given([started(), ...specAccepted, session('g', 'decompose', 'gavin')]).when(outcome('g', tasks)).then([ended('g'), added([t1, t2])]);
    spec_
      .given([started({ mode: 'v2' }), ...specAccepted, session('g', 'decompose', 'gavin')])
      .when(outcome('g', tasks))
      .then([ended('g'), { type: 'run.tasks-proposed', data: { runId, tasks: [t1, t2], by: 'gavin', at: now } }]);
  });

  it('an operator’s edit of the proposed tasks becomes the plan, marked as edited', () => {
    const edited = [{ ...t1, subject: 'Add topWords with validation' }];
    spec_
      .given([started({ mode: 'v2' }), ...specAccepted, { type: 'run.tasks-proposed', data: { runId, tasks: [t1, t2], by: 'gavin', at: now } }])
      .when({ type: 'approve-tasks', runId, tasks: edited, by: 'operator', now })
      .then([{ type: 'run.tasks-approved', data: { runId, tasks: edited, by: 'operator', edited: true, at: now } }, added(edited)]);
  });

  it('a task that fails is retried, and one out of attempts escalates to the operator', () => {
    const base = [started(), ...specAccepted, added([t1]), session('a1', 'task', 'con', { taskKey: 'T1' })];
    expect(stateOf([...base, ...runDecider.decide(outcome('a1', { kind: 'task', status: 'failed' }), stateOf(base))]).tasks.T1.status).toBe('pending');
    const second = [...base, ended('a1'), { type: 'run.task-finished', data: { runId, taskKey: 'T1', persona: 'con', sessionId: 'a1', attempt: 1, outcome: 'failed', summary: 'x', files: [], at: now } } as RunEvent, session('a2', 'task', 'con', { taskKey: 'T1', attempt: 2 })];
    const events = runDecider.decide(outcome('a2', { kind: 'task', status: 'failed' }), stateOf(second));
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.task-finished', 'run.escalated']);
    expect(events[2]).toMatchObject({ data: { escalationId: 'T1-attempts', to: 'operator' } });
  });

  it('Verner sending a failure back adds a fix task for the task’s author', () => {
    const base = [
      started(),
      ...specAccepted,
      added([t1]),
      session('a1', 'task', 'con', { taskKey: 'T1' }),
      ended('a1'),
      { type: 'run.task-finished', data: { runId, taskKey: 'T1', persona: 'con', sessionId: 'a1', attempt: 1, outcome: 'completed', summary: 'x', files: [], at: now } } as RunEvent,
      { type: 'run.task-merged', data: { runId, taskKey: 'T1', files: [], at: now } } as RunEvent,
      session('q1', 'qa', 'verner', { round: 1 }),
    ];
    expect(stateOf(base).phase).toBe('qa');
    const failure = { test: 'rejects n=0', message: 'no RangeError', decision: 'send-back' as const, taskKey: 'T1', details: 'topWords must throw RangeError for n=0' };
    const events = runDecider.decide(outcome('q1', { kind: 'qa', passed: false, failures: [failure] }), stateOf(base));
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.qa-reported', 'run.tasks-added']);
    expect(events[2]).toMatchObject({ data: { tasks: [{ key: 'F1-1', subject: 'Fix: topWords must throw RangeError for n=0', origin: 'qa-fix', author: 'con' }] } });
    expect(stateOf([...base, ...events]).phase).toBe('execution');
  });

  it('QA still failing at the last round escalates instead of looping', () => {
    const base = [started({ limits: { ...limits, maxQaRounds: 1 } }), ...specAccepted, added([t1]), { type: 'run.task-merged', data: { runId, taskKey: 'T1', files: [], at: now } } as RunEvent, session('q1', 'qa', 'verner', { round: 1 })];
    const failure = { test: 't', message: 'm', decision: 'send-back' as const, taskKey: 'T1', details: 'd' };
    const events = runDecider.decide(outcome('q1', { kind: 'qa', passed: false, failures: [failure] }), stateOf(base));
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.qa-reported', 'run.escalated']);
  });

  it('a merge conflict turns into a conflict task for the author, never an overwrite', () => {
    const base = [
      started(),
      ...specAccepted,
      added([t1]),
      session('a1', 'task', 'may', { taskKey: 'T1' }),
      { type: 'run.task-finished', data: { runId, taskKey: 'T1', persona: 'may', sessionId: 'a1', attempt: 1, outcome: 'completed', summary: 'x', files: [], at: now } } as RunEvent,
    ];
    const events = runDecider.decide({ type: 'record-merge', runId, taskKey: 'T1', result: { status: 'conflict', files: ['src/a.js'] }, now }, stateOf(base));
    expect(events[0]).toEqual({ type: 'run.task-conflicted', data: { runId, taskKey: 'T1', files: ['src/a.js'], conflictTaskKey: 'C-T1', at: now } });
    expect(events[1]).toMatchObject({ data: { tasks: [{ key: 'C-T1', origin: 'merge-conflict', author: 'may' }] } });
  });

  it('repeating an outcome, a session start or a merge after a crash records nothing new', () => {
    const base = [started(), ...specAccepted, added([t1]), session('a1', 'task', 'con', { taskKey: 'T1' })];
    const first = runDecider.decide(outcome('a1', { kind: 'task', status: 'completed' }), stateOf(base));
    const after = [...base, ...first];
    expect(runDecider.decide(outcome('a1', { kind: 'task', status: 'completed' }), stateOf(after))).toEqual([]);
    expect(runDecider.decide({ type: 'start-session', runId, sessionId: 'a1', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, now }, stateOf(after))).toEqual([]);
    const merged = [...after, ...runDecider.decide({ type: 'record-merge', runId, taskKey: 'T1', result: { status: 'merged', commit: 'abc', files: [] }, now }, stateOf(after))];
    expect(runDecider.decide({ type: 'record-merge', runId, taskKey: 'T1', result: { status: 'nothing-to-merge', files: [] }, now }, stateOf(merged))).toEqual([]);
  });

  it('the operator stopping at an escalation fails the run cleanly', () => {
    const base = [started(), { type: 'run.escalated', data: { runId, escalationId: 'e1', from: 'verner', to: 'operator', subject: 'QA stuck', details: '', at: now } } as RunEvent];
    spec_.given(base).when({ type: 'answer-escalation', runId, escalationId: 'e1', answer: 'stop', by: 'operator', now }).then([
      { type: 'run.escalation-answered', data: { runId, escalationId: 'e1', answer: 'stop', by: 'operator', at: now } },
      { type: 'run.failed', data: { runId, reason: 'Stopped by operator: QA stuck', at: now } },
    ]);
    spec_.given(base).when({ type: 'answer-escalation', runId, escalationId: 'nope', answer: 'stop', by: 'operator', now }).thenThrows(codeIs('RUN.ESCALATION_NOT_FOUND', 'escalationId'));
  });

  it('commands on an unknown run are refused as not found', () => {
    spec_.given([]).when({ type: 'fail-run', runId, reason: 'x', now }).thenThrows(codeIs('RUN.NOT_FOUND'));
  });
});
