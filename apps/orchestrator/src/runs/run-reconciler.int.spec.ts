import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventRegistry, listTasks, runEvents, sessionEvents, setSubjectNamespace, type RunTask } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The harness boots the real team-manager the runs mirror onto; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTeamManager, type TeamManagerHarness } from '../../../team-manager/src/testing/team-manager-harness';
import { git } from '../workspace/git';
import { RunRecorder } from './run-recorder';
import { RunReconciler } from './run-reconciler';
import type { RunSessionOutcome, RunSessionStart, RunSessionsPort } from './run-ports';
import { RunsProjection } from './runs.projection';
import { StartRunHandler } from './start-run/start-run.handler';

const schema = 'orchestrator';
let tm: TeamManagerHarness;
let store: EventStore;
let projection: RunsProjection;
let base: string;
let source: string;
const spec = { goal: 'Add topWords', acceptanceCriteria: ['ties alphabetical'], constraints: [], outOfScope: [] };

/**
 * Stands in for model-driven sessions (the one thing these specs do not run for real): each session
 * does its work in its worktree at once — a builder writes a file named after its task — and ends
 * with a canned reflection. `hold` keeps matching sessions running until released.
 */
class ScriptedSessions implements RunSessionsPort {
  readonly simulated = true;
  readonly starts: RunSessionStart[] = [];
  readonly executed = new Map<string, number>();
  private readonly outcomes = new Map<string, RunSessionOutcome>();
  hold?: (s: RunSessionStart) => boolean;
  private held: RunSessionStart[] = [];

  constructor(private readonly qaFailsFirst = true) {}

  async start(s: RunSessionStart): Promise<void> {
    this.starts.push(s);
    if (this.outcomes.has(s.sessionId) || this.executed.has(s.sessionId)) return;
    if (this.hold?.(s)) {
      this.held.push(s);
      return;
    }
    await this.execute(s);
  }

  async release(): Promise<void> {
    const held = this.held;
    this.held = [];
    this.hold = undefined;
    for (const s of held) await this.execute(s);
  }

  async outcome(sessionId: string) {
    return this.outcomes.get(sessionId);
  }

  private async execute(s: RunSessionStart): Promise<void> {
    this.executed.set(s.sessionId, (this.executed.get(s.sessionId) ?? 0) + 1);
    const out = (output: unknown, status = 'completed') => ({ task_result: { status, summary: `${s.persona} done`, output }, reflection: {} });
    let reflection: Record<string, unknown>;
    const files: string[] = [];
    switch (s.kind) {
      case 'workshop':
        reflection = out({ spec });
        break;
      case 'decomposition':
        reflection = out({ tasks: [task('T1', []), task('T2', ['T1'])] });
        break;
      case 'task': {
        const key = s.sessionId.split('.')[2];
        await writeFile(join(s.workspace, `${key}.txt`), `${key} by ${s.persona}\n`);
        files.push(`${key}.txt`);
        reflection = out(undefined);
        break;
      }
      case 'qa': {
        const round = Number(/QA round (\d+)/.exec(s.prompt)?.[1]);
        await mkdir(join(s.workspace, 'qa'), { recursive: true });
        await writeFile(join(s.workspace, 'qa', 'spec.test.txt'), 'qa tests\n');
        const fail = this.qaFailsFirst && round === 1;
        reflection = out({ passed: !fail, failures: fail ? [{ test: 'n=0', message: 'no RangeError', decision: 'send-back', taskKey: 'T1', details: 'topWords must reject n=0' }] : [] });
        break;
      }
      default:
        reflection = out({ verdict: 'done', report: 'All criteria met', issues: [] });
    }
    this.outcomes.set(s.sessionId, { exitReason: 'completed', summary: `${s.persona} finished`, filesModified: files, reflection });
  }
}

const task = (key: string, dependsOn: string[]): RunTask => ({ key, subject: `Task ${key}`, description: '', pool: 'backend', acceptanceCriteria: [], dependsOn });

beforeAll(async () => {
  tm = await startTeamManager('runs');
  setSubjectNamespace(tm.namespace);
  await migrate(tm.db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  store = new EventStore({ pool: tm.db.pool, schema, registry: new EventRegistry([...sessionEvents, ...runEvents]) });
  projection = new RunsProjection(tm.db.pool, schema, store);
  projection.onApplicationBootstrap();
  base = await mkdtemp(join(tmpdir(), 'hs-runs-'));
  source = join(base, 'project');
  await mkdir(source, { recursive: true });
  await writeFile(join(source, 'README.md'), '# project\n');
});
afterAll(async () => {
  await projection?.beforeApplicationShutdown();
  setSubjectNamespace('');
  await tm?.close();
  await rm(base, { recursive: true, force: true });
});

function reconciler(sessions: RunSessionsPort) {
  return new RunReconciler(store, tm.db.pool, schema, tm.nc, sessions, { workspacesDir: join(base, 'runs'), sweepMs: 200 });
}

async function startRun(r: RunReconciler, sessions: RunSessionsPort, body: Record<string, unknown>) {
  const handler = new StartRunHandler(store, tm.nc, sessions, r);
  return handler.start({ team: 'alpha', goal: '# Most frequent words\nAdd topWords', source, operator: 'auto', ...body } as never, `cmd-${Math.random()}`);
}

const stateOf = async (runId: string) => (await RunRecorder.load(store, runId)).state;

describe('run reconciler', () => {
  it('a v3 run on auto goes from workshop to a completed review, merging every task and Verner’s tests, and mirrors tasks in the team-manager', async () => {
    const sessions = new ScriptedSessions();
    const r = reconciler(sessions);
    r.onApplicationBootstrap();
    try {
      const { runId } = await startRun(r, sessions, { team: 'alpha', mode: 'v3' });
      const state = await waitFor(async () => {
        const s = await stateOf(runId);
        return s.status === 'completed' ? s : undefined;
      }, { timeoutMs: 30_000 });
      expect(state.result?.verdict).toBe('done');
      expect(sessions.starts.map((s) => `${s.kind}:${s.persona}`)).toEqual([
        'workshop:robbo',
        'decomposition:gavin',
        'task:con',
        'task:con',
        'qa:verner',
        'task:con',
        'qa:verner',
        'review:robbo',
      ]);
      const checkout = state.workspace!.dir;
      expect(await readFile(join(checkout, 'T1.txt'), 'utf8')).toBe('T1 by con\n');
      expect(await readFile(join(checkout, 'F1-1.txt'), 'utf8')).toBe('F1-1 by con\n');
      expect(await readFile(join(checkout, 'qa', 'spec.test.txt'), 'utf8')).toBe('qa tests\n');
      const merges = (await git(checkout, ['log', '--format=%s', '--merges'])).stdout.trim().split('\n').reverse();
      expect(merges).toEqual([
        'Merge T1 (con): Task T1',
        'Merge T2 (con): Task T2',
        'Merge qa-r1 (verner): QA tests (qa-r1)',
        'Merge F1-1 (con): Fix: topWords must reject n=0',
        // Round 2 rewrote the same tests: nothing new to merge, so no empty merge commit.
      ]);
      const { tasks } = await tm.send(listTasks, { team: 'alpha' });
      const mirrored = tasks.filter((t) => t.metadata.run === runId);
      expect(mirrored.map((t) => [t.subject, t.status, t.owner]).sort()).toEqual([
        ['Fix: topWords must reject n=0', 'completed', 'con'],
        ['Task T1', 'completed', 'con'],
        ['Task T2', 'completed', 'con'],
      ]);
    } finally {
      await r.beforeApplicationShutdown();
    }
  });

  it('a v1 run builds the operator’s tasks with no decomposition session', async () => {
    const sessions = new ScriptedSessions(false);
    const r = reconciler(sessions);
    r.onApplicationBootstrap();
    try {
      const { runId } = await startRun(r, sessions, { team: 'beta', mode: 'v1', tasks: [task('A', []), task('B', [])] });
      await waitFor(async () => ((await stateOf(runId)).status === 'completed' ? true : undefined), { timeoutMs: 30_000 });
      expect(sessions.starts.some((s) => s.kind === 'decomposition')).toBe(false);
      expect(sessions.starts.filter((s) => s.kind === 'task').map((s) => s.persona)).toEqual(['con', 'may']);
    } finally {
      await r.beforeApplicationShutdown();
    }
  });

  it('a v2 run waits for the operator’s approval, and an edited plan is what gets built', async () => {
    const sessions = new ScriptedSessions(false);
    const r = reconciler(sessions);
    r.onApplicationBootstrap();
    try {
      const { runId } = await startRun(r, sessions, { team: 'gamma', mode: 'v2', operator: 'interactive' });
      await waitFor(async () => ((await stateOf(runId)).phase === 'spec-review' ? true : undefined), { timeoutMs: 30_000 });
      const run = await RunRecorder.load(store, runId);
      await run.record({ type: 'accept-spec', runId, by: 'operator', now: new Date().toISOString() });
      r.trigger(runId);
      await waitFor(async () => ((await stateOf(runId)).phase === 'tasks-review' ? true : undefined), { timeoutMs: 30_000 });
      const review = await RunRecorder.load(store, runId);
      await review.record({ type: 'approve-tasks', runId, tasks: [{ ...task('T1', []), subject: 'Edited by the operator' }], by: 'operator', now: new Date().toISOString() });
      r.trigger(runId);
      const done = await waitFor(async () => {
        const s = await stateOf(runId);
        return s.status === 'completed' ? s : undefined;
      }, { timeoutMs: 30_000 });
      expect(done.taskOrder).toEqual(['T1']);
      expect(done.tasks.T1.task.subject).toBe('Edited by the operator');
    } finally {
      await r.beforeApplicationShutdown();
    }
  });

  it('a reconciler that stops mid-execution is replaced by another that finishes the run without running any session twice', async () => {
    const sessions = new ScriptedSessions();
    sessions.hold = (s) => s.kind === 'task';
    const first = reconciler(sessions);
    first.onApplicationBootstrap();
    const { runId } = await startRun(first, sessions, { team: 'delta', mode: 'v3' });
    await waitFor(async () => (sessions.starts.some((s) => s.kind === 'task') ? true : undefined), { timeoutMs: 30_000 });
    await first.beforeApplicationShutdown();
    await sessions.release();

    const second = reconciler(sessions);
    second.onApplicationBootstrap();
    try {
      await waitFor(async () => ((await stateOf(runId)).status === 'completed' ? true : undefined), { timeoutMs: 30_000 });
      expect([...sessions.executed.values()].every((n) => n === 1)).toBe(true);
      const state = await stateOf(runId);
      expect(Object.keys(state.sessions).filter((id) => id.includes('.task.T1.'))).toHaveLength(1);
    } finally {
      await second.beforeApplicationShutdown();
    }
  });
});
