import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRun, httpStatusForCode, runStreamId, sessionStreamId, startRun, type RunStreamEvent, type RunTask } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
import { startSessionsOnSimulator } from '../../sessions/testing/sessions-on-simulator.harness';

const fixtures = join(__dirname, 'fixtures');
const team = 'cart-fixes';
let h: CostGovernorHarness;
let store: EventStore;
let root: string;
let source: string;

/** The fixture project as a git repository (`npm test` = `node --test`), with the empty-cart bug in total(). */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-fix-run-'));
  source = join(root, 'projects', 'cart');
  await cp(join(fixtures, 'cart'), source, { recursive: true });
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'cart']]) execFileSync('git', args, { cwd: source });
  ({ h, store } = await startSessionsOnSimulator({
    name: 'fixrun',
    root,
    scenarios: join(fixtures, 'scenarios'),
    orchestratorEnv: { HS_SOURCE_ROOTS: join(root, 'projects'), RUN_SWEEP_MS: '300', SESSION_SWEEP_MS: '300', HS_FIX_CHECK_TIMEOUT_MS: '60000' },
  }));
}, 120_000);
afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const task = (key: string, subject: string, pool: string, dependsOn: string[] = []): RunTask => ({ key, subject, description: 'total() of an empty cart throws a TypeError', pool, acceptanceCriteria: [], dependsOn });
const goal = '# Fix the TypeError of an empty cart\ntotal([]) throws TypeError: Reduce of empty array with no initial value';
const eventsOf = async (runId: string) => (await store.readStream(runStreamId(runId))).map(({ type, data }) => ({ type, data }) as RunStreamEvent);
const ended = (runId: string) =>
  waitFor(async () => {
    const view = await h.send(getRun, { runId });
    return view.phase === 'completed' || view.phase === 'failed' ? view : undefined;
  }, { timeoutMs: 180_000, intervalMs: 500, message: `run ${runId} to end` });
const checksOf = (events: RunStreamEvent[]) => events.flatMap((e) => (e.type === 'run.regression-checked' ? [e.data] : []));

describe('fix runs on the simulator (real orchestrator, team-manager, cost governor, sandbox)', () => {
  it('Verner writes a failing regression test → the check before the fix fails → the builder fixes → the check after passes → completed with the head commit', async () => {
    const { runId } = await h.send(startRun, {
      team,
      goal,
      source,
      mode: 'v1',
      operator: 'auto',
      tasks: [task('REG', 'Reproduce the empty-cart TypeError', 'qa'), task('FIX', 'Fix the empty-cart TypeError', 'backend', ['REG'])],
      // The echo shows where the command ran: the sandbox's private home, not the orchestrator's.
      fix: { groupId: 'grp-empty-cart', testCommand: 'npm test && echo "ran with HOME=$HOME"', regressionTaskKey: 'REG' },
    });
    const view = await ended(runId);
    expect(view).toMatchObject({ phase: 'completed', verdict: 'done', qaRounds: 0, simulated: true });

    const events = await eventsOf(runId);
    const types = events.map((e) => e.type);
    const sessions = events.flatMap((e) => (e.type === 'run.session-started' ? [e.data] : []));
    // No QA round, no review: the checks replace them; Verner (qa pool) writes the test, a builder fixes.
    expect(sessions.map((s) => [s.purpose, s.taskKey ?? '', s.persona])).toEqual([
      ['workshop', '', 'robbo'],
      ['task', 'REG', 'verner'],
      ['task', 'FIX', expect.stringMatching(/^(con|may|mark|al)$/)],
    ]);

    // Verner's session is QA work: his tools write tests only.
    const regSession = (await store.readStream(sessionStreamId(sessions[1].sessionId)))[0].data as { kind: string };
    expect(regSession.kind).toBe('qa');

    const [before, after] = checksOf(events);
    expect(checksOf(events)).toHaveLength(2);
    expect(before).toMatchObject({ stage: 'before-fix', ok: true, command: 'npm test && echo "ran with HOME=$HOME"', testFiles: ['test/regression-empty-cart.test.mjs'] });
    expect(before.exitCode).not.toBe(0);
    expect(before.output).toContain('Reduce of empty array with no initial value');
    expect(after).toMatchObject({ stage: 'after-fix', ok: true, exitCode: 0 });
    expect(after.output).toMatch(/(ℹ|#) fail 0/);
    expect(after.output).toContain('ran with HOME=/tmp/home');

    // The before-fix check ran at REG's merge, before the fix started; the after-fix one at FIX's merge.
    const merges = events.flatMap((e) => (e.type === 'run.task-merged' ? [e.data] : []));
    expect(before.commit).toBe(merges.find((m) => m.taskKey === 'REG')!.commit);
    expect(after.commit).toBe(merges.find((m) => m.taskKey === 'FIX')!.commit);
    const fixStarted = events.findIndex((e) => e.type === 'run.session-started' && e.data.taskKey === 'FIX');
    expect(types.indexOf('run.regression-checked')).toBeLessThan(fixStarted);

    const completed = events.at(-1)!;
    expect(completed.type).toBe('run.completed');
    const dir = view.resultDir!;
    const head = execFileSync('git', ['rev-parse', view.branch!], { cwd: dir, encoding: 'utf8' }).trim();
    expect(completed.data).toMatchObject({ verdict: 'done', headCommit: head });
    // The branch ends on the verified commit, with only the run's team memory committed on top of it (ADR 43).
    expect(execFileSync('git', ['rev-parse', `${head}^`], { cwd: dir, encoding: 'utf8' }).trim()).toBe(after.commit);
    const memoryOnly = execFileSync('git', ['diff', '--name-only', after.commit, head], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
    expect(memoryOnly.length).toBeGreaterThan(0);
    expect(memoryOnly.filter((f) => !f.startsWith('memory/'))).toEqual([]);
    expect(await readFile(join(dir, 'src', 'cart.mjs'), 'utf8')).toContain('sum + cents, 0)');
    // The checks ran in throwaway checkouts, gone afterwards; the integration checkout is clean.
    expect(execFileSync('git', ['worktree', 'list'], { cwd: dir, encoding: 'utf8' })).not.toContain('/checks/');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toBe('');
    expect(view.regressionChecks).toEqual([
      { stage: 'before-fix', ok: true, exitCode: before.exitCode, commit: before.commit, at: before.at },
      { stage: 'after-fix', ok: true, exitCode: 0, commit: after.commit, at: after.at },
    ]);
  });

  it('a regression test that passes on the buggy code is sent back with the check output, and the run fails after maxTaskAttempts', async () => {
    const { runId } = await h.send(startRun, {
      team,
      goal,
      source,
      mode: 'v1',
      operator: 'auto',
      limits: { maxTaskAttempts: 2 },
      tasks: [task('NOREPRO', 'A test that does not reproduce the empty-cart bug', 'qa'), task('FIX2', 'Never started', 'backend', ['NOREPRO'])],
      fix: { groupId: 'grp-empty-cart', testCommand: 'npm test', regressionTaskKey: 'NOREPRO' },
    });
    const view = await ended(runId);
    expect(view.phase).toBe('failed');
    expect(view.failure).toMatch(/^The regression test does not reproduce the bug: `npm test` exited 0 at [0-9a-f]{12} before the fix; NOREPRO \(2 attempts\)/);

    const events = await eventsOf(runId);
    expect(checksOf(events).map((c) => [c.stage, c.ok, c.exitCode])).toEqual([
      ['before-fix', false, 0],
      ['before-fix', false, 0],
    ]);
    const sessions = events.flatMap((e) => (e.type === 'run.session-started' && e.data.purpose === 'task' ? [e.data] : []));
    expect(sessions.map((s) => [s.taskKey, s.attempt, s.persona])).toEqual([
      ['NOREPRO', 1, 'verner'],
      ['NOREPRO', 2, 'verner'],
    ]);
    // The second attempt's test merged as a second merge of the task, and was checked again.
    expect(events.flatMap((e) => (e.type === 'run.task-merged' ? [[e.data.taskKey, e.data.files]] : []))).toEqual([
      ['NOREPRO', ['test/regression-one-item.test.mjs']],
      ['NOREPRO', ['test/regression-two-items.test.mjs']],
    ]);
    expect(checksOf(events).map((c) => c.testFiles)).toEqual([['test/regression-one-item.test.mjs'], ['test/regression-two-items.test.mjs']]);
    // The second attempt was told why: the first check's output is in its prompt.
    const second = (await store.readStream(sessionStreamId(sessions[1].sessionId)))[0].data as { prompt: string };
    expect(second.prompt).toContain('## Your previous test did not reproduce the bug');
    expect(second.prompt).toMatch(/(ℹ|#) pass 2/);
  });

  it('a fix run whose tasks lack the regression task is refused (400, naming fix.regressionTaskKey) and nothing is recorded', async () => {
    const runId = 'bad-fix-run';
    const error = await h.sendError(startRun, {
      runId,
      team,
      goal,
      source,
      mode: 'v1',
      operator: 'auto',
      tasks: [task('FIX', 'Fix the empty-cart TypeError', 'backend')],
      fix: { groupId: 'grp-empty-cart', testCommand: 'npm test', regressionTaskKey: 'REG' },
    });
    expect(error).toMatchObject({ code: 'RUN.TASKS_INVALID', field: 'fix.regressionTaskKey' });
    expect(httpStatusForCode(error.code)).toBe(400);
    const empty = await h.sendError(startRun, { runId, team, goal, source, mode: 'v1', tasks: [task('REG', 'r', 'qa'), task('FIX', 'f', 'backend')], fix: { groupId: 'g', testCommand: '', regressionTaskKey: 'REG' } });
    expect(empty).toMatchObject({ field: 'fix.testCommand' });
    expect(httpStatusForCode(empty.code)).toBe(400);
    expect(await store.readStream(runStreamId(runId))).toEqual([]);
  });
});
