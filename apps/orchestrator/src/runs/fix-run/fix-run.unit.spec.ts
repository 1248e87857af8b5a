import { DeciderSpec, foldEvents } from '@headspace/event-store';
import { summariseRunEvent, type RunTask } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { runDecider, type RunCommand, type RunEvent, type RunState } from '../run.decider';
import { nextActions, poolFor } from '../run-planner';
import { promptFor } from '../run-prompts';
import { runView } from '../run-view';
import type { RegressionCheckResult } from './fix-run.rules';

const now = '2026-11-24T10:00:00.000Z';
const later = '2026-11-24T10:07:30.000Z';
const runId = 'r1';
const roster = { pools: { workshop: ['robbo'], pm: ['gavin'], backend: ['con', 'may'], qa: ['verner'], review: ['robbo'] }, names: {} };
const limits = { maxQaRounds: 3, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 };
const spec = { goal: 'Fix the TypeError in totals', acceptanceCriteria: ['no TypeError'], constraints: [], outOfScope: [] };
const reg: RunTask = { key: 'REG', subject: 'Regression test for the TypeError', description: '', pool: 'qa', acceptanceCriteria: [], dependsOn: [] };
const fixTask: RunTask = { key: 'FIX', subject: 'Fix the TypeError', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: ['REG'] };
const fix = { groupId: 'grp-1', testCommand: 'npm test', regressionTaskKey: 'REG' };

type StartedData = Extract<RunEvent, { type: 'run.started' }>['data'];
const started = (over: Partial<StartedData> = {}): RunEvent => ({
  type: 'run.started',
  data: { runId, team: 'shop', goal: 'Fix it', title: 'Fix it', source: '/src', mode: 'v1', operator: 'auto', limits, roster, tasks: [reg, fixTask], fix, simulated: true, startedAt: now, ...over },
});
const startCommand = (over: Partial<StartedData> = {}): RunCommand => {
  const { startedAt: _s, ...data } = (started(over) as Extract<RunEvent, { type: 'run.started' }>).data;
  return { type: 'start-run', ...data, now };
};
const planned: RunEvent[] = [
  started(),
  { type: 'run.workspace-prepared', data: { runId, dir: '/ws/r1/checkout', branch: 'headspace/r1/main', baseCommit: 'base', at: now } },
  { type: 'run.spec-drafted', data: { runId, spec, at: now } },
  { type: 'run.spec-accepted', data: { runId, by: 'auto-operator', at: now } },
  { type: 'run.tasks-added', data: { runId, tasks: [reg, fixTask].map((t) => ({ ...t, origin: 'plan' as const })), at: now } },
  { type: 'run.tasks-created', data: { runId, team: 'shop', tasks: [{ key: 'REG', taskId: 'r1-reg' }, { key: 'FIX', taskId: 'r1-fix' }], at: now } },
];
/** A task's attempt: its session, its end, its finish and its merge. */
const worked = (key: string, persona: string, attempt: number, files: string[]): RunEvent[] => {
  const sessionId = `${runId}.task.${key}.a${attempt}`;
  return [
    { type: 'run.session-started', data: { runId, sessionId, purpose: 'task', persona, taskKey: key, attempt, at: now } },
    { type: 'run.session-ended', data: { runId, sessionId, exitReason: 'completed', summary: 'done', at: now } },
    { type: 'run.task-finished', data: { runId, taskKey: key, persona, sessionId, attempt, outcome: 'completed', summary: 'done', files, at: now } },
    { type: 'run.task-merged', data: { runId, taskKey: key, commit: `c-${key}-${attempt}`, files, at: now } },
  ];
};
const regMerged = (attempt = 1) => worked('REG', 'verner', attempt, ['test/totals.test.js']);
const fixMerged = (attempt = 1) => worked('FIX', 'con', attempt, ['src/totals.js']);

const result = (stage: 'before-fix' | 'after-fix', exitCode: number, over: Partial<RegressionCheckResult> = {}): RegressionCheckResult => ({
  stage,
  commit: `head-${stage}`,
  command: 'npm test',
  exitCode,
  timedOut: false,
  testFiles: ['test/totals.test.js'],
  output: exitCode ? "not ok 1 - totals of an empty cart\n  TypeError: Cannot read properties of undefined (reading 'price')" : 'ok 1 - totals of an empty cart\n# pass 1',
  ...over,
});
const check = (stage: 'before-fix' | 'after-fix', exitCode: number, over: Partial<RegressionCheckResult> = {}): RunCommand => ({ type: 'record-regression-check', runId, ...result(stage, exitCode, over), now });
const checked = (stage: 'before-fix' | 'after-fix', exitCode: number, ok: boolean): RunEvent => {
  const { timedOut: _t, ...r } = result(stage, exitCode);
  return { type: 'run.regression-checked', data: { runId, ...r, ok, at: now } };
};

const spec_ = DeciderSpec.for(runDecider);
const stateOf = (events: RunEvent[]): RunState => foldEvents(runDecider, events);
const decide = (events: RunEvent[], command: RunCommand) => runDecider.decide(command, stateOf(events));
const codeIs = (code: string, field: string) => (error: unknown) => (error as { code?: string }).code === code && (error as { field?: string }).field === field;
const starts = (events: RunEvent[]) => nextActions(stateOf(events)).filter((a) => a.type === 'start-session');

describe('fix run: starting', () => {
  it('a fix run with its regression task and a fix task starts, carrying the fix', () => {
    spec_.given([]).when(startCommand()).then([started()]);
  });

  it('a fix run whose tasks lack the regression task is refused, naming fix.regressionTaskKey', () => {
    spec_.given([]).when(startCommand({ fix: { ...fix, regressionTaskKey: 'QA1' } })).thenThrows(codeIs('RUN.TASKS_INVALID', 'fix.regressionTaskKey'));
  });

  it('a fix run with only the regression task is refused, naming tasks', () => {
    spec_.given([]).when(startCommand({ tasks: [reg] })).thenThrows(codeIs('RUN.TASKS_INVALID', 'tasks'));
  });

  it('a fix run without tasks is refused, naming tasks', () => {
    spec_.given([]).when(startCommand({ tasks: undefined })).thenThrows(codeIs('RUN.TASKS_INVALID', 'tasks'));
  });

  it('a fix run that is not v1 (tasks given by the operator) is refused, naming mode', () => {
    spec_.given([]).when(startCommand({ mode: 'v3' })).thenThrows(codeIs('RUN.TASKS_INVALID', 'mode'));
  });

  it('a regression task that depends on another task is refused: it comes first', () => {
    spec_.given([]).when(startCommand({ tasks: [{ ...reg, dependsOn: ['FIX'] }, { ...fixTask, dependsOn: [] }] })).thenThrows(codeIs('RUN.TASKS_INVALID', 'tasks.0.dependsOn'));
  });
});

describe('fix run: the regression task', () => {
  it('is Verner’s: it takes its persona from the qa pool, not the generalist’s', () => {
    const state = stateOf(planned);
    expect(poolFor(state, state.tasks.REG)).toEqual({ pool: 'qa' });
    expect(poolFor(state, state.tasks.FIX)).toEqual({ pool: 'backend' });
  });

  it('a qa-pool task of a run that is not a fix run still goes to the generalist', () => {
    const state = stateOf([started({ fix: undefined }), ...planned.slice(1)]);
    expect(poolFor(state, state.tasks.REG).pool).toBe('backend');
  });

  it('starts first; the fix waits for it even when it names no dependency', () => {
    const events = [...planned.slice(0, 4), { type: 'run.tasks-added', data: { runId, tasks: [reg, { ...fixTask, dependsOn: [] }].map((t) => ({ ...t, origin: 'plan' as const })), at: now } } as RunEvent, planned[5]];
    expect(starts(events)).toEqual([expect.objectContaining({ taskKey: 'REG', pool: 'qa' })]);
  });

  it('its prompt says the test must fail now and name the exception, and not to fix the code', () => {
    const prompt = promptFor(stateOf(planned), 'task', 'REG');
    expect(prompt).toMatch(/^Task REG: Regression test for the TypeError/);
    expect(prompt).toContain('It must FAIL on the code as it is now');
    expect(prompt).toContain('must name the exception');
    expect(prompt).toContain('Do not fix the code');
    expect(prompt).toContain('`npm test`');
  });
});

describe('fix run: the check before the fix', () => {
  it('is due once the regression task merged, and nothing else starts meanwhile', () => {
    expect(nextActions(stateOf([...planned, ...regMerged()]))).toEqual([{ type: 'regression-check', stage: 'before-fix' }]);
  });

  it('a failing command is recorded as the bug reproduced (ok), with the regression test files', () => {
    spec_.given([...planned, ...regMerged()]).when(check('before-fix', 1)).then([checked('before-fix', 1, true)]);
  });

  it('once the bug is reproduced the fix task starts, its prompt holding the test files and the before-fix output', () => {
    const events = [...planned, ...regMerged(), checked('before-fix', 1, true)];
    expect(starts(events)).toEqual([expect.objectContaining({ taskKey: 'FIX', pool: 'backend' })]);
    const prompt = promptFor(stateOf(events), 'task', 'FIX');
    expect(prompt).toContain('- test/totals.test.js');
    expect(prompt).toContain("TypeError: Cannot read properties of undefined (reading 'price')");
    expect(prompt).toContain('Do not weaken, skip or delete the regression test');
  });

  it('a passing command means the test does not reproduce the bug: not ok, and the regression task goes back with the output', () => {
    const events = [...planned, ...regMerged()];
    spec_.given(events).when(check('before-fix', 0)).then([checked('before-fix', 0, false)]);
    const back = [...events, checked('before-fix', 0, false)];
    expect(stateOf(back).tasks.REG.status).toBe('pending');
    expect(starts(back)).toEqual([expect.objectContaining({ taskKey: 'REG', attempt: 2, pool: 'qa', affinity: 'verner' })]);
    const prompt = promptFor(stateOf(back), 'task', 'REG');
    expect(prompt).toContain('## Your previous test did not reproduce the bug');
    expect(prompt).toContain('`npm test` exited 0 at head-before-');
    expect(prompt).toContain('# pass 1');
    expect(prompt).not.toContain('the earlier attempt did not finish');
  });

  it('a command that timed out reproduces nothing, whatever its exit code', () => {
    expect(decide([...planned, ...regMerged()], check('before-fix', 124, { timedOut: true }))[0]).toMatchObject({ type: 'run.regression-checked', data: { ok: false } });
  });

  it('a regression task out of attempts whose test still passes fails the run, saying why', () => {
    const events = [...planned, ...regMerged(1), checked('before-fix', 0, false), ...regMerged(2)];
    const decided = decide(events, check('before-fix', 0));
    expect(decided.map((e) => e.type)).toEqual(['run.regression-checked', 'run.failed']);
    expect(decided[1]).toMatchObject({ data: { reason: expect.stringMatching(/^The regression test does not reproduce the bug: `npm test` exited 0 at head-before- before the fix; REG \(2 attempts\) did not write a test that fails/) } });
    expect(stateOf([...events, ...decided]).status).toBe('failed');
  });

  it('is recorded once: the same check again (a crash after it was recorded) decides nothing', () => {
    spec_.given([...planned, ...regMerged(), checked('before-fix', 1, true)]).when(check('before-fix', 1)).then([]);
  });

  it('is not recorded before the regression task merged', () => {
    spec_.given(planned).when(check('before-fix', 1)).then([]);
  });

  it('a regression task given up (its escalation answered "continue") fails the run: no fix without a failing test', () => {
    const events: RunEvent[] = [
      ...planned,
      ...worked('REG', 'verner', 1, []).slice(0, 2),
      { type: 'run.task-finished', data: { runId, taskKey: 'REG', persona: 'verner', sessionId: 'r1.task.REG.a1', attempt: 2, outcome: 'failed', summary: 'x', files: [], at: now } },
      { type: 'run.escalated', data: { runId, escalationId: 'REG-attempts', from: 'verner', to: 'operator', subject: 'REG failed', details: '', about: 'REG', at: now } },
      { type: 'run.escalation-answered', data: { runId, escalationId: 'REG-attempts', answer: 'continue', by: 'auto-operator', at: now } },
    ];
    expect(nextActions(stateOf(events))).toEqual([{ type: 'fail', reason: expect.stringContaining('The regression task REG was given up') }]);
  });
});

describe('fix run: the check after the fix', () => {
  const reproducedBug = [...planned, ...regMerged(), checked('before-fix', 1, true)];

  it('is due once every task merged', () => {
    expect(nextActions(stateOf([...reproducedBug, ...fixMerged()]))).toEqual([{ type: 'regression-check', stage: 'after-fix' }]);
  });

  it('a passing command is ok, and the run completes (no QA round, no review) with its head commit', () => {
    const events = [...reproducedBug, ...fixMerged()];
    spec_.given(events).when(check('after-fix', 0)).then([checked('after-fix', 0, true)]);
    const passed = [...events, checked('after-fix', 0, true)];
    expect(stateOf(passed).phase).toBe('execution');
    expect(nextActions(stateOf(passed))).toEqual([{ type: 'complete' }]);
    spec_
      .given(passed)
      .when({ type: 'complete-run', runId, headCommit: 'abc123', now: later })
      .then([
        {
          type: 'run.completed',
          data: { runId, verdict: 'done', resultDir: '/ws/r1/checkout', branch: 'headspace/r1/main', headCommit: 'abc123', summary: { tasks: 2, attempts: 2, qaRounds: 0, wallTimeMs: 450_000 }, at: later },
        },
      ]);
  });

  it('the run does not complete before the fix passed its check', () => {
    spec_.given([...reproducedBug, ...fixMerged()]).when({ type: 'complete-run', runId, headCommit: 'abc', now }).thenThrows(codeIs('RUN.WRONG_PHASE', 'runId'));
  });

  it('a failing command sends the fix task back with the output; the regression task stays as it is', () => {
    const events = [...reproducedBug, ...fixMerged()];
    spec_.given(events).when(check('after-fix', 1)).then([checked('after-fix', 1, false)]);
    const back = [...events, checked('after-fix', 1, false)];
    expect(stateOf(back).tasks.FIX.status).toBe('pending');
    expect(stateOf(back).tasks.REG.status).toBe('merged');
    expect(starts(back)).toEqual([expect.objectContaining({ taskKey: 'FIX', attempt: 2, affinity: 'con' })]);
    const prompt = promptFor(stateOf(back), 'task', 'FIX');
    expect(prompt).toContain('## Your previous fix did not pass');
    expect(prompt).toContain('`npm test` exited 1 at head-after-f');
  });

  it('after the fix task merged again the check is due again', () => {
    const events = [...reproducedBug, ...fixMerged(1), checked('after-fix', 1, false), ...fixMerged(2)];
    expect(nextActions(stateOf(events))).toEqual([{ type: 'regression-check', stage: 'after-fix' }]);
    expect(stateOf(events).tasks.FIX.merges).toBe(2);
  });

  it('a fix task out of attempts whose fix still fails fails the run, saying why', () => {
    const events = [...reproducedBug, ...fixMerged(1), checked('after-fix', 1, false), ...fixMerged(2)];
    const decided = decide(events, check('after-fix', 1));
    expect(decided.map((e) => e.type)).toEqual(['run.regression-checked', 'run.failed']);
    expect(decided[1]).toMatchObject({ data: { reason: expect.stringMatching(/^The fix does not pass the regression test: `npm test` exited 1 at head-after-f.*FIX \(2 attempts\)/) } });
  });

  it('the run view lists the checks', () => {
    const view = runView(stateOf([...reproducedBug, ...fixMerged(), checked('after-fix', 0, true)]));
    expect(view.regressionChecks).toEqual([
      { stage: 'before-fix', ok: true, exitCode: 1, commit: 'head-before-fix', at: now },
      { stage: 'after-fix', ok: true, exitCode: 0, commit: 'head-after-fix', at: now },
    ]);
    expect(runView(stateOf([started({ fix: undefined, mode: 'v3', tasks: undefined })])).regressionChecks).toBeUndefined();
  });

  it('each check reads as one line for logs, the CLI and the SSE stream', () => {
    expect([checked('before-fix', 1, true), checked('before-fix', 0, false), checked('after-fix', 0, true), checked('after-fix', 1, false)].map(summariseRunEvent)).toEqual([
      'Regression test fails before the fix ✓ (exit 1 at head-be)',
      'Regression test does not fail before the fix ✗ (exit 0 at head-be): sent back',
      'Regression test passes after the fix ✓ (exit 0 at head-af)',
      'Regression test still fails after the fix ✗ (exit 1 at head-af): sent back',
    ]);
  });
});
