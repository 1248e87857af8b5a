import { DeciderSpec, foldEvents } from '@headspace/event-store';
import type { RunTask } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { AUTO_ANSWER, AUTO_OPERATOR, isSettled, runDecider, type RunCommand, type RunEvent, type RunState } from './run.decider';
import type { PhaseOutput } from './run-output';
import { nextActions } from './run-planner';
import { promptFor } from './run-prompts';

const now = '2026-11-24T10:00:00.000Z';
const later = '2026-11-24T10:05:03.000Z';
const runId = 'r1';
const roster = { pools: { workshop: ['robbo'], pm: ['gavin'], backend: ['con', 'may', 'mark'], qa: ['verner'], review: ['robbo'] }, names: {} };
const limits = { maxQaRounds: 3, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 };
const spec = { goal: 'Add topWords', acceptanceCriteria: ['ties alphabetical'], constraints: [], outOfScope: [] };
const t1: RunTask = { key: 'T1', subject: 'Add topWords', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: [] };
const t2: RunTask = { key: 'T2', subject: 'Add the CLI', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: ['T1'] };

type StartedData = Extract<RunEvent, { type: 'run.started' }>['data'];
type Purpose = 'workshop' | 'decompose' | 'task' | 'qa' | 'review' | 'escalation';

const started = (over: Partial<StartedData> = {}): RunEvent => ({
  type: 'run.started',
  data: { runId, team: 'red', goal: 'Add topWords', title: 'topWords', source: '/src', mode: 'v3', operator: 'interactive', limits, roster, simulated: true, startedAt: now, ...over },
});
const startCommand = (over: Partial<StartedData> = {}): RunCommand => {
  const { startedAt: _s, ...data } = (started(over) as Extract<RunEvent, { type: 'run.started' }>).data;
  return { type: 'start-run', ...data, now };
};
const session = (sessionId: string, purpose: Purpose, persona: string, extra: { taskKey?: string; round?: number; attempt?: number; escalationId?: string; leaseId?: string } = {}): RunEvent => ({
  type: 'run.session-started',
  data: { runId, sessionId, purpose, persona, attempt: extra.attempt ?? 1, ...(({ attempt: _a, ...rest }) => rest)(extra), at: now },
});
const outcome = (sessionId: string, output: PhaseOutput, exitReason = 'completed', extra: { approvalId?: string; gaveBack?: { reason: string } } = {}): RunCommand => ({
  type: 'record-session-outcome',
  runId,
  sessionId,
  exitReason,
  summary: 'done',
  output,
  files: ['src/a.js'],
  ...extra,
  now,
});
const ended = (sessionId: string, exitReason = 'completed', outputError?: string): RunEvent => ({
  type: 'run.session-ended',
  data: { runId, sessionId, exitReason, summary: 'done', ...(outputError ? { outputError } : {}), at: now },
});
const workspace: RunEvent = { type: 'run.workspace-prepared', data: { runId, dir: '/ws/r1/checkout', branch: 'headspace/r1/main', baseCommit: 'base', at: now } };
const specAccepted: RunEvent[] = [{ type: 'run.spec-drafted', data: { runId, spec, at: now } }, { type: 'run.spec-accepted', data: { runId, by: 'operator', at: now } }];
const added = (tasks: RunTask[], origin: 'plan' | 'qa-fix' = 'plan'): RunEvent => ({ type: 'run.tasks-added', data: { runId, tasks: tasks.map((t) => ({ ...t, origin })), at: now } });
const finished = (taskKey: string, persona: string, sessionId: string, outcome_: 'completed' | 'failed', attempt = 1): RunEvent => ({
  type: 'run.task-finished',
  data: { runId, taskKey, persona, sessionId, attempt, outcome: outcome_, summary: 'x', files: [], at: now },
});
const merged = (taskKey: string): RunEvent => ({ type: 'run.task-merged', data: { runId, taskKey, files: [], at: now } });
const escalated = (escalationId: string, from: string, to: 'gavin' | 'robbo' | 'operator', about?: string, subject = 'Stuck'): RunEvent => ({
  type: 'run.escalated',
  data: { runId, escalationId, from, to, subject, details: '', ...(about ? { about } : {}), at: now },
});
const building = (over: Partial<StartedData> = {}, tasks: RunTask[] = [t1]): RunEvent[] => [started(over), workspace, ...specAccepted, added(tasks)];
const t1Done: RunEvent[] = [session('a1', 'task', 'con', { taskKey: 'T1' }), ended('a1'), finished('T1', 'con', 'a1', 'completed'), merged('T1')];

const spec_ = DeciderSpec.for(runDecider);
const codeIs = (code: string, field?: string) => (error: unknown) => (error as { code?: string }).code === code && (field === undefined || (error as { field?: string }).field === field);
const stateOf = (events: RunEvent[]): RunState => foldEvents(runDecider, events);
const decide = (events: RunEvent[], command: RunCommand) => runDecider.decide(command, stateOf(events));
const after = (events: RunEvent[], command: RunCommand) => stateOf([...events, ...decide(events, command)]);

describe('run decider: starting', () => {
  it('starting a run records the goal, modes, limits and roster', () => {
    spec_.given([]).when(startCommand()).then([started()]);
  });

  it('starting the same run again records nothing', () => {
    spec_.given([started()]).when(startCommand()).then([]);
  });

  it('a v1 run without the operator’s tasks is refused, naming the field', () => {
    spec_.given([]).when(startCommand({ mode: 'v1' })).thenThrows(codeIs('RUN.TASKS_INVALID', 'tasks'));
  });

  it('a v1 plan with a circular dependency or an unknown dependency is refused at the start', () => {
    spec_.given([]).when(startCommand({ mode: 'v1', tasks: [{ ...t1, dependsOn: ['T2'] }, t2] })).thenThrows(codeIs('RUN.TASKS_INVALID', 'tasks'));
    spec_.given([]).when(startCommand({ mode: 'v1', tasks: [t1, { ...t2, dependsOn: ['T9'] }] })).thenThrows(codeIs('RUN.TASKS_INVALID', 'tasks.1.dependsOn'));
  });

  it('the workspace is recorded once', () => {
    const command: RunCommand = { type: 'record-workspace', runId, dir: '/ws/r1/checkout', branch: 'headspace/r1/main', baseCommit: 'base', now };
    spec_.given([started()]).when(command).then([workspace]);
    spec_.given([started(), workspace]).when(command).then([]);
  });

  it('commands on an unknown run are refused as not found', () => {
    spec_.given([]).when({ type: 'fail-run', runId, reason: 'x', now }).thenThrows(codeIs('RUN.NOT_FOUND', 'runId'));
    spec_.given([]).when({ type: 'accept-spec', runId, by: 'operator', now }).thenThrows(codeIs('RUN.NOT_FOUND'));
  });
});

describe('run decider: sessions and personas', () => {
  const start: RunCommand = { type: 'start-session', runId, sessionId: 'a1', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, pool: 'backend', leaseId: 'L1', affinity: false, worktree: '/ws/con', now };

  it('a session start records the persona, its pool lease, its worktree and the task’s subject', () => {
    spec_.given(building()).when(start).then([
      { type: 'run.session-started', data: { runId, sessionId: 'a1', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, pool: 'backend', leaseId: 'L1', affinity: false, worktree: '/ws/con', subject: 'Add topWords', at: now } },
    ]);
  });

  it('a session start repeated after a crash, or on a run that has ended, records nothing', () => {
    const once = [...building(), ...decide(building(), start)];
    spec_.given(once).when(start).then([]);
    spec_.given([...building(), { type: 'run.failed', data: { runId, reason: 'stopped', at: now } }]).when(start).then([]);
  });

  it('a session waiting in the pool’s queue is recorded once per request, and leaves the queue when it starts', () => {
    const queue: RunCommand = { type: 'record-persona-queued', runId, sessionId: 'a1', purpose: 'task', taskKey: 'T1', pool: 'backend', requestId: 'q1', position: 2, now };
    const queued: RunEvent = { type: 'run.persona-queued', data: { runId, sessionId: 'a1', purpose: 'task', taskKey: 'T1', pool: 'backend', requestId: 'q1', position: 2, at: now } };
    spec_.given(building()).when(queue).then([queued]);
    spec_.given([...building(), queued]).when(queue).then([]);
    expect(after([...building(), queued], start).queued).toEqual({});
  });

  it('a persona goes back to its pool once, and only a session holding a lease has one to give back', () => {
    const held = [...building(), session('a1', 'task', 'con', { taskKey: 'T1', leaseId: 'L1' }), ended('a1')];
    const release: RunCommand = { type: 'record-persona-released', runId, sessionId: 'a1', now };
    const released: RunEvent = { type: 'run.persona-released', data: { runId, sessionId: 'a1', persona: 'con', leaseId: 'L1', at: now } };
    spec_.given(held).when(release).then([released]);
    spec_.given([...held, released]).when(release).then([]);
    spec_.given([...building(), session('a1', 'task', 'con', { taskKey: 'T1' })]).when(release).then([]);
  });

  it('repeating an outcome after a crash records nothing new', () => {
    const base = [...building(), session('a1', 'task', 'con', { taskKey: 'T1' })];
    const first = [...base, ...decide(base, outcome('a1', { kind: 'task', status: 'completed' }))];
    spec_.given(first).when(outcome('a1', { kind: 'task', status: 'completed' })).then([]);
  });

  it('a session that ends after its run has ended only notes the end, so its persona can be given back', () => {
    const base = [...building(), session('a1', 'task', 'con', { taskKey: 'T1', leaseId: 'L1' }), { type: 'run.failed', data: { runId, reason: 'stopped', at: now } } as RunEvent];
    spec_.given(base).when(outcome('a1', { kind: 'task', status: 'completed' })).then([ended('a1')]);
  });
});

describe('run decider: workshop and spec', () => {
  const workshop = (over: Partial<StartedData> = {}) => [started(over), workspace, session('w1', 'workshop', 'robbo', { round: 1 })];

  it('Robbo’s questions wait for the operator in an interactive run', () => {
    spec_.given(workshop()).when(outcome('w1', { kind: 'questions', questions: ['Which delimiter?'] })).then([ended('w1'), { type: 'run.questions-asked', data: { runId, round: 1, questions: ['Which delimiter?'], at: now } }]);
  });

  it('the auto operator answers Robbo’s questions with the recorded answer and accepts his spec, saying so', () => {
    spec_.given(workshop({ operator: 'auto' })).when(outcome('w1', { kind: 'questions', questions: ['Which delimiter?'] })).then([
      ended('w1'),
      { type: 'run.questions-asked', data: { runId, round: 1, questions: ['Which delimiter?'], at: now } },
      { type: 'run.questions-answered', data: { runId, round: 1, answer: AUTO_ANSWER, by: AUTO_OPERATOR, at: now } },
    ]);
    spec_.given(workshop({ operator: 'auto' })).when(outcome('w1', { kind: 'spec', spec })).then([ended('w1'), specAccepted[0], { type: 'run.spec-accepted', data: { runId, by: AUTO_OPERATOR, at: now } }]);
  });

  it('the operator answers pending questions for their round; with none pending it is a wrong-phase conflict', () => {
    const asked = [...workshop(), ended('w1'), { type: 'run.questions-asked', data: { runId, round: 1, questions: ['?'], at: now } } as RunEvent];
    spec_.given(asked).when({ type: 'answer-questions', runId, answer: 'Spaces only', by: 'operator', now }).then([{ type: 'run.questions-answered', data: { runId, round: 1, answer: 'Spaces only', by: 'operator', at: now } }]);
    spec_.given(workshop()).when({ type: 'answer-questions', runId, answer: 'x', by: 'operator', now }).thenThrows(codeIs('RUN.WRONG_PHASE'));
  });

  it('accepting a spec when none is waiting is a wrong-phase conflict', () => {
    spec_.given([started()]).when({ type: 'accept-spec', runId, by: 'operator', now }).thenThrows(codeIs('RUN.WRONG_PHASE'));
  });

  it('accepting the spec of a v1 run puts the operator’s tasks in the plan', () => {
    spec_.given([started({ mode: 'v1', tasks: [t1] }), specAccepted[0]]).when({ type: 'accept-spec', runId, by: 'operator', now }).then([specAccepted[1], added([t1])]);
  });

  it('a workshop that ends without a usable spec records why, and nothing else', () => {
    spec_.given(workshop()).when(outcome('w1', { kind: 'invalid', error: 'spec.acceptanceCriteria: too small' })).then([ended('w1', 'completed', 'spec.acceptanceCriteria: too small')]);
  });
});

describe('run decider: decomposition (PM modes)', () => {
  const planning = (over: Partial<StartedData> = {}) => [started(over), workspace, ...specAccepted, session('g', 'decompose', 'gavin')];
  const proposed: RunEvent = { type: 'run.tasks-proposed', data: { runId, tasks: [t1, t2], by: 'gavin', approvalId: 'ap-1', at: now } };

  it('in v3 Gavin’s tasks are the plan', () => {
    spec_.given(planning()).when(outcome('g', { kind: 'tasks', tasks: [t1, t2] })).then([ended('g'), added([t1, t2])]);
  });

  it('in v2 Gavin’s tasks wait for the operator under their plan-approval', () => {
    spec_.given(planning({ mode: 'v2' })).when(outcome('g', { kind: 'tasks', tasks: [t1, t2] }, 'completed', { approvalId: 'ap-1' })).then([ended('g'), proposed]);
    expect(after(planning({ mode: 'v2' }), outcome('g', { kind: 'tasks', tasks: [t1] })).phase).toBe('tasks-review');
  });

  it('in v2 with the auto operator the proposal is approved at once, recorded as the auto operator', () => {
    spec_.given(planning({ mode: 'v2', operator: 'auto' })).when(outcome('g', { kind: 'tasks', tasks: [t1] })).then([
      ended('g'),
      { type: 'run.tasks-proposed', data: { runId, tasks: [t1], by: 'gavin', at: now } },
      { type: 'run.tasks-approved', data: { runId, tasks: [t1], by: AUTO_OPERATOR, edited: false, at: now } },
      added([t1]),
    ]);
  });

  it('an operator’s edit of the proposed tasks becomes the plan, marked as edited', () => {
    const edited = [{ ...t1, subject: 'Add topWords with validation' }];
    spec_.given([...planning({ mode: 'v2' }), ended('g'), proposed]).when({ type: 'approve-tasks', runId, tasks: edited, by: 'operator', now }).then([
      { type: 'run.tasks-approved', data: { runId, tasks: edited, by: 'operator', edited: true, at: now } },
      added(edited),
    ]);
  });

  it('an edit that breaks the task graph is refused, and approving with nothing proposed is a wrong-phase conflict', () => {
    spec_.given([...planning({ mode: 'v2' }), ended('g'), proposed]).when({ type: 'approve-tasks', runId, tasks: [t2], by: 'operator', now }).thenThrows(codeIs('RUN.TASKS_INVALID'));
    spec_.given(planning({ mode: 'v2' })).when({ type: 'approve-tasks', runId, by: 'operator', now }).thenThrows(codeIs('RUN.WRONG_PHASE'));
  });

  it('turning the proposal down sends the run back to decomposition with the reason', () => {
    const base = [...planning({ mode: 'v2' }), ended('g'), proposed];
    spec_.given(base).when({ type: 'reject-tasks', runId, reason: 'Split T1', by: 'operator', now }).then([{ type: 'run.tasks-rejected', data: { runId, by: 'operator', reason: 'Split T1', at: now } }]);
    const state = after(base, { type: 'reject-tasks', runId, reason: 'Split T1', by: 'operator', now });
    expect(state).toMatchObject({ phase: 'decomposition', rejections: ['Split T1'], proposal: undefined });
  });

  it('the plan’s tasks on the team’s task list are recorded once each', () => {
    const command: RunCommand = { type: 'record-tasks-created', runId, team: 'red', tasks: [{ key: 'T1', taskId: 'r1-t1' }], now };
    const created: RunEvent = { type: 'run.tasks-created', data: { runId, team: 'red', tasks: [{ key: 'T1', taskId: 'r1-t1' }], at: now } };
    spec_.given(building()).when(command).then([created]);
    spec_.given([...building(), created]).when(command).then([]);
  });
});

describe('run decider: execution', () => {
  it('a finished task is recorded with its subject and becomes ready to merge', () => {
    const base = [...building(), session('a1', 'task', 'con', { taskKey: 'T1' })];
    spec_.given(base).when(outcome('a1', { kind: 'task', status: 'completed' })).then([
      ended('a1'),
      { type: 'run.task-finished', data: { runId, taskKey: 'T1', subject: 'Add topWords', persona: 'con', sessionId: 'a1', attempt: 1, outcome: 'completed', summary: 'done', files: ['src/a.js'], at: now } },
    ]);
    expect(after(base, outcome('a1', { kind: 'task', status: 'completed' })).tasks.T1.status).toBe('done');
  });

  it('a partial result or a session cut short counts as a failed attempt, and the task is tried again', () => {
    const base = [...building(), session('a1', 'task', 'con', { taskKey: 'T1' })];
    expect(after(base, outcome('a1', { kind: 'task', status: 'partial' })).tasks.T1.status).toBe('pending');
    expect(after(base, outcome('a1', { kind: 'task', status: 'completed' }, 'max_turns')).tasks.T1.status).toBe('pending');
  });

  it('a builder that gave its task back has failed the attempt, even when its session ends as completed or hands off, and the task is tried again', () => {
    const base = [...building(), session('a1', 'task', 'con', { taskKey: 'T1' })];
    const gaveBack = outcome('a1', { kind: 'task', status: 'completed' }, 'completed', { gaveBack: { reason: 'The spec contradicts the API' } });
    spec_.given(base).when(gaveBack).then([
      ended('a1'),
      {
        type: 'run.task-finished',
        data: { runId, taskKey: 'T1', subject: 'Add topWords', persona: 'con', sessionId: 'a1', attempt: 1, outcome: 'failed', summary: 'Gave the task back (release_task): The spec contradicts the API\n\ndone', files: ['src/a.js'], at: now },
      },
    ]);
    expect(after(base, gaveBack).tasks.T1.status).toBe('pending');
    expect(after(base, outcome('a1', { kind: 'task', status: 'unknown' }, 'handoff', { gaveBack: { reason: 'The spec contradicts the API' } })).tasks.T1).toMatchObject({ status: 'pending', handoffs: 0 });
  });

  it('a session that hands off at the context threshold is continued by a fresh session of the same persona, on the same attempt, from its handoff', () => {
    const handoff = '# Handoff: Con — Session 2026-11-24T10:00:00Z\n\n## Task\nT1';
    const base = [...building(), session('r1.task.T1.a1', 'task', 'con', { taskKey: 'T1' })];
    const events = decide(base, { ...(outcome('r1.task.T1.a1', { kind: 'task', status: 'unknown' }, 'handoff') as Extract<RunCommand, { type: 'record-session-outcome' }>), summary: handoff });
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.task-finished']);
    expect(events[1]).toMatchObject({ data: { outcome: 'handed-off', attempt: 1, summary: handoff } });
    const state = foldEvents(runDecider, [...base, ...events]);
    expect(state.tasks.T1).toMatchObject({ status: 'pending', attempts: 1, handoffs: 1, handoff, persona: 'con' });
    const next = nextActions(state).filter((a) => a.type === 'start-session');
    expect(next).toEqual([expect.objectContaining({ sessionId: 'r1.task.T1.a1.h1', taskKey: 'T1', attempt: 1, affinity: 'con' })]);
    expect(promptFor(state, 'task', 'T1')).toContain(`## Handoff From Your Previous Session`);
    expect(promptFor(state, 'task', 'T1')).toContain(handoff);
    // Handing off never counts against the attempts: no escalation even on the last attempt.
    const last = [...building({ limits: { ...limits, maxTaskAttempts: 1 } }), session('s', 'task', 'con', { taskKey: 'T1' })];
    expect(decide(last, outcome('s', { kind: 'task', status: 'unknown' }, 'handoff')).map((e) => e.type)).toEqual(['run.session-ended', 'run.task-finished']);
  });

  it('a task out of attempts escalates to Gavin, or to the operator in v1 where the operator is the PM', () => {
    const second = (mode: 'v1' | 'v3') => [
      ...building(mode === 'v1' ? { mode, tasks: [t1] } : {}),
      session('a1', 'task', 'con', { taskKey: 'T1' }),
      ended('a1'),
      finished('T1', 'con', 'a1', 'failed'),
      session('a2', 'task', 'con', { taskKey: 'T1', attempt: 2 }),
    ];
    const events = decide(second('v3'), outcome('a2', { kind: 'task', status: 'failed' }));
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.task-finished', 'run.escalated']);
    expect(events[2]).toMatchObject({ data: { escalationId: 'T1-attempts', from: 'con', to: 'gavin', about: 'T1' } });
    expect(decide(second('v1'), outcome('a2', { kind: 'task', status: 'failed' }))[2]).toMatchObject({ data: { to: 'operator' } });
  });

  it('a merge is recorded once, and only for a finished task', () => {
    const done = [...building(), session('a1', 'task', 'con', { taskKey: 'T1' }), finished('T1', 'con', 'a1', 'completed')];
    const merge: RunCommand = { type: 'record-merge', runId, taskKey: 'T1', result: { status: 'merged', commit: 'abc', files: ['a.js'] }, now };
    spec_.given(done).when(merge).then([{ type: 'run.task-merged', data: { runId, taskKey: 'T1', subject: 'Add topWords', persona: 'con', commit: 'abc', files: ['a.js'], at: now } }]);
    spec_.given([...done, ...decide(done, merge)]).when({ ...merge, result: { status: 'nothing-to-merge', files: [] } }).then([]);
    spec_.given(building()).when(merge).then([]);
  });

  it('a merge conflict turns into a conflict task for the author, never an overwrite, and dependants wait for it', () => {
    const base = [...building({}, [t1, t2]), session('a1', 'task', 'may', { taskKey: 'T1' }), finished('T1', 'may', 'a1', 'completed')];
    const events = decide(base, { type: 'record-merge', runId, taskKey: 'T1', result: { status: 'conflict', files: ['src/a.js'] }, now });
    expect(events[0]).toEqual({ type: 'run.task-conflicted', data: { runId, taskKey: 'T1', subject: 'Add topWords', persona: 'may', files: ['src/a.js'], conflictTaskKey: 'C-T1', at: now } });
    expect(events[1]).toMatchObject({ data: { tasks: [{ key: 'C-T1', origin: 'merge-conflict', author: 'may' }] } });
    const state = stateOf([...base, ...events]);
    expect(state.phase).toBe('execution');
    expect(isSettled(state, 'T1')).toBe(false);
    const resolved = stateOf([...base, ...events, session('c1', 'task', 'may', { taskKey: 'C-T1' }), finished('C-T1', 'may', 'c1', 'completed'), merged('C-T1')]);
    expect(resolved.tasks.T1.status).toBe('conflicted');
    expect(isSettled(resolved, 'T1')).toBe(true);
  });
});

describe('run decider: QA', () => {
  const testing = (over: Partial<StartedData> = {}, round = 1) => [...building(over), ...t1Done, session(`q${round}`, 'qa', 'verner', { round })];
  const failure = (decision: 'send-back' | 'fix-test' | 'escalate') => ({ test: 'rejects n=0', message: 'no RangeError', decision, taskKey: 'T1', details: 'topWords must throw RangeError for n=0' });

  it('QA starts once every task is merged, and a pass moves the run to review', () => {
    expect(stateOf(testing()).phase).toBe('qa');
    const state = after(testing(), outcome('q1', { kind: 'qa', passed: true, failures: [] }));
    expect(state.qaReports).toEqual([{ round: 1, passed: true, failures: [], merged: false }]);
    expect(state.phase).toBe('review');
  });

  it('Verner sending a failure back adds a "Fix:" task for the task’s author', () => {
    const events = decide(testing(), outcome('q1', { kind: 'qa', passed: false, failures: [failure('send-back')] }));
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.qa-reported', 'run.tasks-added']);
    expect(events[2]).toMatchObject({ data: { tasks: [{ key: 'F1-1', subject: 'Fix: topWords must throw RangeError for n=0', origin: 'qa-fix', author: 'con', pool: 'backend' }] } });
    expect(stateOf([...testing(), ...events]).phase).toBe('execution');
  });

  it('a failure Verner puts down to her own test adds no task: the next round runs with the test fixed', () => {
    const events = decide(testing(), outcome('q1', { kind: 'qa', passed: false, failures: [failure('fix-test')] }));
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.qa-reported']);
    expect(stateOf([...testing(), ...events]).phase).toBe('qa');
  });

  it('a failure that looks like a spec problem escalates from Verner to Robbo', () => {
    const events = decide(testing(), outcome('q1', { kind: 'qa', passed: false, failures: [failure('escalate')] }));
    expect(events[2]).toEqual({ type: 'run.escalated', data: { runId, escalationId: 'qa-r1-spec', from: 'verner', to: 'robbo', subject: 'Spec ambiguity: rejects n=0', details: 'topWords must throw RangeError for n=0', about: 'qa-r1', at: now } });
  });

  it('QA still failing at the last round escalates to Robbo instead of looping', () => {
    const events = decide(testing({ limits: { ...limits, maxQaRounds: 1 } }), outcome('q1', { kind: 'qa', passed: false, failures: [failure('send-back')] }));
    expect(events.map((e) => e.type)).toEqual(['run.session-ended', 'run.qa-reported', 'run.escalated']);
    expect(events[2]).toMatchObject({ data: { escalationId: 'qa-r1', from: 'verner', to: 'robbo', about: 'qa-r1' } });
  });
});

describe('run decider: escalations', () => {
  const stuck = [...building({}, [t1, t2]), session('a1', 'task', 'con', { taskKey: 'T1' }), finished('T1', 'con', 'a1', 'failed'), session('a2', 'task', 'con', { taskKey: 'T1', attempt: 2 }), finished('T1', 'con', 'a2', 'failed', 2)];
  const answer = (escalationId: string, answer_: 'continue' | 'retry' | 'stop' | 'escalate', by = 'operator', note?: string): RunCommand => ({ type: 'answer-escalation', runId, escalationId, answer: answer_, ...(note ? { note } : {}), by, now });

  it('the operator stopping at an escalation fails the run cleanly', () => {
    const base = [started(), escalated('e1', 'verner', 'operator', undefined, 'QA stuck')];
    spec_.given(base).when(answer('e1', 'stop')).then([
      { type: 'run.escalation-answered', data: { runId, escalationId: 'e1', answer: 'stop', by: 'operator', at: now } },
      { type: 'run.failed', data: { runId, reason: 'Stopped by operator: QA stuck', at: now } },
    ]);
  });

  it('an unknown escalation is refused naming the field, and one already answered records nothing', () => {
    const base = [started(), escalated('e1', 'verner', 'operator')];
    spec_.given(base).when(answer('nope', 'stop')).thenThrows(codeIs('RUN.ESCALATION_NOT_FOUND', 'escalationId'));
    spec_.given([...base, ...decide(base, answer('e1', 'continue'))]).when(answer('e1', 'stop')).then([]);
  });

  it('nobody is above the operator', () => {
    spec_.given([started(), escalated('e1', 'robbo', 'operator')]).when(answer('e1', 'escalate')).thenThrows(codeIs('RUN.WRONG_PHASE'));
  });

  it('Gavin passing a stuck task up goes to Robbo, and Robbo passing it up goes to the operator', () => {
    const atGavin = [...stuck, escalated('T1-attempts', 'con', 'gavin', 'T1'), session('e-g', 'escalation', 'gavin', { escalationId: 'T1-attempts' })];
    const byGavin = decide(atGavin, outcome('e-g', { kind: 'escalation', decision: 'escalate', note: 'Needs an architecture call' }));
    expect(byGavin.slice(1)).toEqual([
      { type: 'run.escalation-answered', data: { runId, escalationId: 'T1-attempts', answer: 'escalate', note: 'Needs an architecture call', by: 'gavin', at: now } },
      { type: 'run.escalated', data: { runId, escalationId: 'T1-attempts-to-robbo', from: 'gavin', to: 'robbo', subject: 'Stuck', details: 'gavin: Needs an architecture call', about: 'T1', at: now } },
    ]);
    const atRobbo = [...atGavin, ...byGavin, session('e-r', 'escalation', 'robbo', { escalationId: 'T1-attempts-to-robbo' })];
    expect(decide(atRobbo, outcome('e-r', { kind: 'escalation', decision: 'escalate' }))[2]).toMatchObject({ data: { escalationId: 'T1-attempts-to-operator', from: 'robbo', to: 'operator' } });
  });

  it('an escalation session without a usable decision passes the escalation up rather than guessing', () => {
    const atGavin = [...stuck, escalated('T1-attempts', 'con', 'gavin', 'T1'), session('e-g', 'escalation', 'gavin', { escalationId: 'T1-attempts' })];
    expect(decide(atGavin, outcome('e-g', { kind: 'invalid', error: 'no JSON' })).map((e) => e.type)).toEqual(['run.session-ended', 'run.escalation-answered', 'run.escalated']);
  });

  it('continuing past a task out of attempts goes on without it; retrying grants one more attempt with the guidance', () => {
    const base = [...stuck, escalated('T1-attempts', 'con', 'gavin', 'T1')];
    const skipped = after(base, answer('T1-attempts', 'continue', 'gavin'));
    expect(skipped.tasks.T1.status).toBe('skipped');
    expect(skipped.phase).toBe('execution'); // T2, no longer held back by T1
    const retried = after(base, answer('T1-attempts', 'retry', 'gavin', 'Use a Map, not an object'));
    expect(retried.tasks.T1).toMatchObject({ status: 'pending', maxAttempts: 3, notes: ['Use a Map, not an object'] });
  });

  it('continuing past QA out of rounds accepts it and goes to review; retrying allows one more round', () => {
    const base = [
      ...building({ limits: { ...limits, maxQaRounds: 1 } }),
      ...t1Done,
      session('q1', 'qa', 'verner', { round: 1 }),
      { type: 'run.qa-reported', data: { runId, round: 1, passed: false, failures: [], summary: '', at: now } } as RunEvent,
      escalated('qa-r1', 'verner', 'robbo', 'qa-r1'),
    ];
    expect(after(base, answer('qa-r1', 'continue', 'robbo')).phase).toBe('review');
    expect(after(base, answer('qa-r1', 'retry', 'robbo'))).toMatchObject({ phase: 'qa', maxQaRounds: 2 });
  });
});

describe('run decider: review and the end', () => {
  const reviewed = [
    ...building(),
    ...t1Done,
    session('q1', 'qa', 'verner', { round: 1 }),
    { type: 'run.qa-reported', data: { runId, round: 1, passed: true, failures: [], summary: '', at: now } } as RunEvent,
    merged('qa-r1'),
    session('rv', 'review', 'robbo'),
  ];

  it('Robbo’s review is recorded as done or issues', () => {
    spec_.given(reviewed).when(outcome('rv', { kind: 'review', verdict: 'issues', report: 'CLI lacks help', issues: ['--help'] })).then([
      ended('rv'),
      { type: 'run.review-reported', data: { runId, verdict: 'issues', report: 'CLI lacks help', issues: ['--help'], at: now } },
    ]);
  });

  it('completing records the verdict, where the result is, and tasks, attempts, QA rounds and wall time', () => {
    const done = [...reviewed, ...decide(reviewed, outcome('rv', { kind: 'review', verdict: 'done', report: 'ok', issues: [] }))];
    spec_.given(done).when({ type: 'complete-run', runId, headCommit: 'h1', now: later }).then([
      {
        type: 'run.completed',
        data: { runId, verdict: 'done', resultDir: '/ws/r1/checkout', branch: 'headspace/r1/main', headCommit: 'h1', summary: { tasks: 1, attempts: 1, qaRounds: 1, wallTimeMs: 303_000 }, at: later },
      },
    ]);
  });

  it('completing before the review is a wrong-phase conflict, and a finished run takes no more answers', () => {
    spec_.given(building()).when({ type: 'complete-run', runId, headCommit: 'h', now }).thenThrows(codeIs('RUN.WRONG_PHASE'));
    spec_.given([...building(), { type: 'run.failed', data: { runId, reason: 'x', at: now } }]).when({ type: 'accept-spec', runId, by: 'operator', now }).thenThrows(codeIs('RUN.WRONG_PHASE'));
  });

  it('failing a run records the reason', () => {
    spec_.given([started()]).when({ type: 'fail-run', runId, reason: 'No spec after 3 workshop rounds', now }).then([{ type: 'run.failed', data: { runId, reason: 'No spec after 3 workshop rounds', at: now } }]);
  });
});
