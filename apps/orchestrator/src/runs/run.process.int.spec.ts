import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  answerRun,
  EventRegistry,
  getApproval,
  getRun,
  listPersonas,
  listRuns,
  listTasks,
  releaseTask,
  runEvents,
  runStreamId,
  sessionEvents,
  sessionStreamId,
  setSubjectNamespace,
  startRun,
  summariseRunEvent,
  answerApproval,
  type RunStreamEvent,
  type RunTask,
} from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { JetStreamTransport, WireErrorFilter } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION, openReadOrm, PG_POOL, READ_ORM, ReadModel, SERVICE_SCHEMA } from '@headspace/platform';
import { Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
// The harness boots the real team-manager the runs work with; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTeamManager, type TeamManagerHarness } from '../../../team-manager/src/testing/team-manager-harness';
import { AgentProjects } from '../agents/agent-project';
import { AgentRegistries } from '../agents/agent-registries.service';
import { AgentResolver } from '../agents/agent-resolver.service';
import { SessionRecorder } from '../sessions/session-recorder';
import { git } from '../workspace/git';
import { AnswerRunHandler } from './answer-run/answer-run.handler';
import { GetRunHandler } from './get-run/get-run.handler';
import { GitRunWorkspace } from './git-run-workspace';
import { ListRunsHandler } from './list-runs/list-runs.handler';
import { RUN_SESSIONS, type RegressionCheckPort, type RunSessionStart, type RunSessionsPort } from './run-ports';
import { AgentSessionRow } from '../sessions/agent-session.entity';
import { RunRow } from './run.entity';
import { RunRecorder } from './run-recorder';
import { RunProcess } from './run.process';
import { RunsProjection } from './runs.projection';
import { RUN_SOURCE_POLICY, RunSourcePolicy } from './run-source.policy';
import type { RunState } from './run.state';
import { StartRunHandler } from './start-run/start-run.handler';

const schema = 'orchestrator';
let tm: TeamManagerHarness;
let store: EventStore;
let projection: RunsProjection;
let handlers: INestMicroservice | undefined;

/** The run handlers, served by the transport as the orchestrator serves them, on the harness's database and NATS. */
@Module({})
class RunHandlersModule {
  static with(providers: Record<symbol, unknown>): DynamicModule {
    return {
      module: RunHandlersModule,
      controllers: [StartRunHandler, AnswerRunHandler, GetRunHandler, ListRunsHandler],
      providers: [{ provide: EventStore, useValue: store }, ReadModel, AgentRegistries, AgentProjects, AgentResolver, ...Object.getOwnPropertySymbols(providers).map((provide) => ({ provide, useValue: providers[provide] }))],
    };
  }
}
let base: string;
let source: string;
let workspace: GitRunWorkspace;
const spec = { goal: 'Add topWords', acceptanceCriteria: ['ties alphabetical'], constraints: [], outOfScope: [] };
const task = (key: string, dependsOn: string[], pool = 'backend'): RunTask => ({ key, subject: `Task ${key}`, description: '', pool, acceptanceCriteria: [], dependsOn });

/**
 * Stands in for model-driven sessions (the one thing these specs do not run for real) the way the
 * session supervisor does: it records the session's start in its own stream, does the work in the
 * persona's worktree at once (a builder writes a file named after its task), records the
 * reflection the model would have ended with and ends the session. `hold` keeps matching sessions
 * running (started, not ended) until `release`.
 */
class ScriptedSessions implements RunSessionsPort {
  readonly simulated = true;
  readonly starts: RunSessionStart[] = [];
  hold?: (s: RunSessionStart) => boolean;
  /** Sessions that fill their context: they write a handoff and end as `handoff` instead of finishing. */
  handsOff?: (s: RunSessionStart) => boolean;
  /** Task sessions whose agent gives its task back with release_task, then ends its session as completed all the same. */
  givesBack?: (s: RunSessionStart) => boolean;
  private held: RunSessionStart[] = [];

  constructor(private readonly qaFailsFirst = true) {}

  async start(s: RunSessionStart): Promise<void> {
    this.starts.push(s);
    const recorder = await SessionRecorder.load(store, s.sessionId);
    const { sessionId, team, persona, kind, runId, taskId, model, effort, prompt, workspace: dir, situation } = s;
    await recorder.record({ type: 'start-session', sessionId, team, persona, kind, runId, ...(taskId ? { taskId } : {}), model, effort, runtime: 'built-in', simulated: true, prompt, workspace: dir, situation, now: new Date().toISOString() });
    if (this.hold?.(s)) this.held.push(s);
    else await this.finish(s);
  }

  async release(): Promise<void> {
    const held = this.held;
    this.held = [];
    this.hold = undefined;
    for (const s of held) await this.finish(s);
  }

  private async finish(s: RunSessionStart): Promise<void> {
    if (this.handsOff?.(s)) {
      const recorder = await SessionRecorder.load(store, s.sessionId);
      const handoff = { persona: 'Con', sessionAt: new Date().toISOString(), task: 'T1', status: 'half done', whatWasDone: ['Wrote the first half'], whatRemains: ['The second half'], blockersNotes: [], filesModified: [], suggestedNextSteps: ['Write the second half'], preserved: [] };
      await recorder.record({ type: 'record-handoff', sessionId: s.sessionId, handoff, contextUsedPercent: 81, now: new Date().toISOString() });
      await recorder.record({ type: 'end-session', sessionId: s.sessionId, exitReason: 'handoff', summary: 'Handed off at 81%', now: new Date().toISOString() });
      return;
    }
    const output = await this.work(s);
    if (s.taskId && this.givesBack?.(s)) await giveBack(s);
    const recorder = await SessionRecorder.load(store, s.sessionId);
    const reflection = { task_result: { status: 'completed', summary: `${s.persona} done`, files_changed: [], ...(output ? { output } : {}) }, reflection: { what_worked: '', what_didnt: '', confidence: 'high' }, suggested_learnings: [] };
    await recorder.record({ type: 'record-reflection', sessionId: s.sessionId, reflection, malformed: false, now: new Date().toISOString() });
    await recorder.record({ type: 'end-session', sessionId: s.sessionId, exitReason: 'completed', summary: `${s.persona} finished`, now: new Date().toISOString() });
  }

  private async work(s: RunSessionStart): Promise<Record<string, unknown> | undefined> {
    switch (s.kind) {
      case 'workshop':
        return { spec };
      case 'decomposition':
        return s.prompt.includes('turned down your earlier plan') ? { tasks: [{ ...task('T1', []), subject: 'Task T1 (redrafted)' }] } : { tasks: [task('T1', []), task('T2', ['T1'])] };
      case 'task': {
        const key = s.sessionId.split('.')[2];
        await writeFile(join(s.workspace, `${key}.txt`), `${key} by ${s.persona}\n`);
        return undefined;
      }
      case 'qa': {
        const round = Number(/QA round (\d+)/.exec(s.prompt)?.[1]);
        await mkdir(join(s.workspace, 'qa'), { recursive: true });
        await writeFile(join(s.workspace, 'qa', 'spec.test.txt'), 'qa tests\n');
        const fail = this.qaFailsFirst && round === 1;
        return { passed: !fail, failures: fail ? [{ test: 'n=0', message: 'no RangeError', decision: 'send-back', taskKey: 'T1', details: 'topWords must reject n=0' }] : [] };
      }
      default:
        return { verdict: 'done', report: 'All criteria met', issues: [] };
    }
  }
}

/** What an agent's release_task call leaves: the release on the team board, the model's tool use and the tool's result in the session. */
async function giveBack(s: RunSessionStart): Promise<void> {
  const reason = 'The spec contradicts the existing API';
  await tm.send(releaseTask, { team: s.team, taskId: s.taskId!, owner: s.persona, reason });
  const recorder = await SessionRecorder.load(store, s.sessionId);
  const toolUse = { type: 'tool_use', id: 'tu-release', name: 'release_task', input: { task_id: s.taskId, reason } };
  const usage = { inputTokens: 100, outputTokens: 20, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
  const now = new Date().toISOString();
  await recorder.record({ type: 'record-model-call', sessionId: s.sessionId, turn: 1, model: s.model, stopReason: 'tool_use', content: [toolUse], usage, injectedMessageIds: [], durationMs: 5, now });
  const content = JSON.stringify({ id: s.taskId, title: 'Task', status: 'pending', attempt: 1, escalated: false });
  await recorder.record({ type: 'record-tool-call', sessionId: s.sessionId, turn: 1, toolUseId: 'tu-release', tool: 'release_task', isError: false, content, filesModified: [], hooks: [], durationMs: 3, now });
}

const noSessions: RunSessionsPort = { simulated: true, start: async () => undefined };
/** None of these runs is a fix run (fix-run/fix-run.e2e.spec.ts runs the checks for real). */
const noChecks: RegressionCheckPort = { run: () => Promise.reject(new Error('not a fix run: no regression check')) };

beforeAll(async () => {
  tm = await startTeamManager('runs');
  setSubjectNamespace(tm.namespace);
  await migrate(tm.db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  store = new EventStore({ pool: tm.db.pool, schema, registry: new EventRegistry([...sessionEvents, ...runEvents]) });
  projection = new RunsProjection(store);
  projection.onApplicationBootstrap();
  base = await mkdtemp(join(tmpdir(), 'hs-runs-'));
  // The project directory is the one allowed source root of these runs.
  const sources = new RunSourcePolicy({ roots: [join(base, 'project')], workspacesDir: join(base, 'runs') });
  handlers = await NestFactory.createMicroservice(
    RunHandlersModule.with({
      [NATS_CONNECTION]: tm.nc,
      [PG_POOL]: tm.db.pool,
      [SERVICE_SCHEMA]: schema,
      [RUN_SESSIONS]: noSessions,
      [RUN_SOURCE_POLICY]: sources,
      [APP_CONFIG]: { HS_AGENT_HOME: join(base, 'agent-home'), HS_SOURCE_ROOTS: [join(base, 'project')], HS_WORKSPACES_DIR: join(base, 'runs') },
      [READ_ORM]: await openReadOrm(tm.db.pool, tm.db.url, schema, [RunRow, AgentSessionRow]),
    }),
    { strategy: new JetStreamTransport({ connection: tm.nc, pool: tm.db.pool, schema }), logger: false },
  );
  handlers.useGlobalFilters(new WireErrorFilter());
  await handlers.listen();
  source = join(base, 'project');
  await mkdir(source, { recursive: true });
  await writeFile(join(source, 'README.md'), '# project\n');
  workspace = new GitRunWorkspace(join(base, 'runs'), sources);
}, 60_000);
afterAll(async () => {
  await handlers?.close();
  await projection?.beforeApplicationShutdown();
  setSubjectNamespace('');
  await tm?.close();
  await rm(base, { recursive: true, force: true });
});

const processWith = (sessions: RunSessionsPort, taskLeaseMs?: number) => {
  const p = new RunProcess(store, tm.nc, sessions, workspace, { workspacesDir: join(base, 'runs'), sweepMs: 200, ...(taskLeaseMs ? { taskLeaseMs } : {}) }, noChecks);
  p.onApplicationBootstrap();
  return p;
};
const start = (body: Omit<z.input<typeof startRun.request>, 'goal' | 'source'>) =>
  tm.send(startRun, { goal: '# Most frequent words\nAdd topWords', source, operator: 'auto', ...body }, { commandId: `start-${Math.random()}` });
const stateOf = async (runId: string) => (await RunRecorder.load(store, runId)).state;
const until = (runId: string, done: (s: RunState) => boolean, message: string) =>
  waitFor(async () => {
    const s = await stateOf(runId);
    if (s.status === 'failed') throw new Error(`run failed: ${s.failure}`);
    return done(s) ? s : undefined;
  }, { timeoutMs: 30_000, message });
const completed = (runId: string) => until(runId, (s) => s.status === 'completed', 'the run to complete');
const eventsOf = async (runId: string) => (await store.readStream(runStreamId(runId))).map(({ type, data }) => ({ type, data }) as RunStreamEvent);
/** Starts a one-task run whose builder stays at work, and waits for its claim on the team board. */
async function builderAtWork(sessions: ScriptedSessions, team: string) {
  const { runId } = await start({ team, mode: 'v1', tasks: [task('T1', [])] });
  await waitFor(() => (sessions.starts.some((s) => s.kind === 'task') ? true : undefined), { timeoutMs: 30_000, message: 'the builder to start' });
  const teamTaskId = (await stateOf(runId)).tasks.T1.teamTaskId!;
  const board = async () => (await tm.send(listTasks, { team, taskIds: [teamTaskId] })).tasks[0];
  const claimed = (await waitFor(async () => ((await board())?.status === 'claimed' ? board() : undefined), { timeoutMs: 10_000, message: 'the claim on the board' }))!;
  return { runId, teamTaskId, board, claimed };
}
/** Every persona back in its pool: no leases, nobody queued. */
const poolsIdle = () => waitFor(async () => {
  const personas = await tm.send(listPersonas, {});
  return personas.activeAgents === 0 && personas.queue.length === 0 ? personas : undefined;
}, { message: 'every persona released' });

describe('run process', () => {
  it('a v3 run goes workshop → spec → decomposition → execution in dependency order → QA sends a failure back → fix → QA passes → review → completed', async () => {
    const sessions = new ScriptedSessions();
    const p = processWith(sessions);
    try {
      const { runId } = await start({ team: 'alpha', mode: 'v3' });
      const state = await completed(runId);
      expect(sessions.starts.map((s) => `${s.kind}:${s.persona}${s.taskId ? `:${s.taskId}` : ''}`)).toEqual([
        'workshop:robbo',
        'decomposition:gavin',
        `task:con:${runId}-t1`,
        `task:con:${runId}-t2`,
        'qa:verner',
        `task:con:${runId}-f1-1`,
        'qa:verner',
        'review:robbo',
      ]);
      expect(sessions.starts.map((s) => s.situation)).toEqual(['workshop', 'decompose', 'implement-task', 'implement-task', 'qa', 'implement-task', 'qa', 'review']);
      expect(sessions.starts[5].prompt).toMatch(/^Task F1-1: Fix: topWords must reject n=0/);

      const checkout = state.workspace!.dir;
      expect(await readFile(join(checkout, 'T2.txt'), 'utf8')).toBe('T2 by con\n');
      expect(await readFile(join(checkout, 'F1-1.txt'), 'utf8')).toBe('F1-1 by con\n');
      const merges = (await git(checkout, ['log', '--format=%s', '--merges'])).stdout.trim().split('\n').reverse();
      expect(merges).toEqual(['Merge T1 (con): Task T1', 'Merge T2 (con): Task T2', 'Merge qa-r1 (verner): QA tests (qa-r1)', 'Merge F1-1 (con): Fix: topWords must reject n=0']);

      // The task board is a read model: the last completion shows there a moment after the run completes.
      const boardOf = async () =>
        (await tm.send(listTasks, { team: 'alpha' })).tasks.filter((t) => t.metadata.run === runId).map((t) => ({ id: t.taskId, status: t.status, owner: t.owner, dependsOn: t.dependsOn }));
      const board = await waitFor(async () => {
        const tasks = await boardOf();
        return tasks.length === 3 && tasks.every((t) => t.status === 'completed') ? tasks : undefined;
      }, { timeoutMs: 30_000, message: 'the board to show the three tasks completed' });
      expect(board).toEqual(
        expect.arrayContaining([
          { id: `${runId}-t1`, status: 'completed', owner: 'con', dependsOn: [] },
          { id: `${runId}-t2`, status: 'completed', owner: 'con', dependsOn: [`${runId}-t1`] },
          { id: `${runId}-f1-1`, status: 'completed', owner: 'con', dependsOn: [] },
        ]),
      );
      await poolsIdle();

      const lines = (await eventsOf(runId)).map(summariseRunEvent);
      // No cost governor runs beside these specs: each session says it ran on its purpose's default.
      expect(lines).toEqual(expect.arrayContaining(["Con started T1 'Task T1' — sonnet, standard effort (default: the cost governor did not answer)", "Con finished T2 'Task T2'", 'Verner: QA round 2 passed', "Fix task F1-1 'Fix: topWords must reject n=0' added for Con", 'Con is free again']));
      expect(lines.at(-1)).toMatch(/^Run completed \(done\): 3 tasks, 3 attempts, 2 QA rounds in \d+s; result on headspace\/.+\/main in /);

      const view = await tm.send(getRun, { runId });
      expect(view).toMatchObject({ phase: 'completed', verdict: 'done', progress: { tasksDone: 3, tasksTotal: 3 }, costUsd: null, qaRounds: 2 });
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a v1 run builds the operator’s tasks with no decomposition session, side by side from the backend pool', async () => {
    const sessions = new ScriptedSessions(false);
    const p = processWith(sessions);
    try {
      const { runId } = await start({ team: 'beta', mode: 'v1', tasks: [task('A', []), task('B', [])] });
      await completed(runId);
      expect(sessions.starts.some((s) => s.kind === 'decomposition')).toBe(false);
      expect(sessions.starts.filter((s) => s.kind === 'task').map((s) => s.persona)).toEqual(['con', 'may']);
      await poolsIdle();
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a run that names a runtime starts every one of its sessions on it; one that names none leaves it to the member or persona', async () => {
    const sessions = new ScriptedSessions(false);
    const p = processWith(sessions);
    try {
      const named = await start({ team: 'beta', mode: 'v1', tasks: [task('A', [])], runtime: 'claude-code' });
      await completed(named.runId);
      const ofRun = (runId: string) => sessions.starts.filter((s) => s.runId === runId);
      expect(ofRun(named.runId).length).toBeGreaterThan(1);
      expect(ofRun(named.runId).every((s) => s.runtime === 'claude-code')).toBe(true);
      const unnamed = await start({ team: 'beta', mode: 'v1', tasks: [task('A', [])] });
      await completed(unnamed.runId);
      expect(ofRun(unnamed.runId).every((s) => s.runtime === undefined)).toBe(true);
      await poolsIdle();
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a v2 run waits for the operator at the spec and at Gavin’s plan-approval, and the operator’s edited plan is what gets built', async () => {
    const sessions = new ScriptedSessions(false);
    const p = processWith(sessions);
    try {
      const { runId } = await start({ team: 'gamma', mode: 'v2', operator: 'interactive' });
      await until(runId, (s) => s.phase === 'spec-review', 'the spec to wait for the operator');
      expect((await tm.send(getRun, { runId })).waitingFor).toBe('acceptance of the spec');
      await tm.send(answerRun, { kind: 'spec', runId, accept: true });
      const review = await until(runId, (s) => s.phase === 'tasks-review', 'the tasks to wait for the operator');
      const approvalId = review.proposal!.approvalId!;
      // The approvals board is a projection: the approval shows there a moment after it was requested.
      expect(await waitFor(() => tm.send(getApproval, { approvalId }).catch(() => undefined), { timeoutMs: 30_000 })).toMatchObject({ kind: 'plan-approval', status: 'pending', requester: 'gavin', team: 'gamma' });

      await tm.send(answerRun, { kind: 'tasks', runId, tasks: [{ ...task('T1', []), subject: 'Edited by the operator' }] });
      const done = await completed(runId);
      expect(done.taskOrder).toEqual(['T1']);
      expect(done.tasks.T1.task.subject).toBe('Edited by the operator');
      expect(await waitFor(async () => ((await tm.send(getApproval, { approvalId })).status === 'approved' ? tm.send(getApproval, { approvalId }) : undefined), { timeoutMs: 30_000 })).toMatchObject({ status: 'approved', decidedBy: 'operator' });
      const approved = (await eventsOf(runId)).find((e) => e.type === 'run.tasks-approved');
      expect(approved).toMatchObject({ data: { by: 'operator', edited: true } });
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a plan turned down in the team-manager’s approvals queue is redrafted by Gavin with the reason, and approved there', async () => {
    const sessions = new ScriptedSessions(false);
    const p = processWith(sessions);
    try {
      const { runId } = await start({ team: 'delta', mode: 'v2', operator: 'interactive' });
      await until(runId, (s) => s.phase === 'spec-review', 'the spec');
      await tm.send(answerRun, { kind: 'spec', runId, accept: true });
      const first = await until(runId, (s) => s.phase === 'tasks-review', 'the first draft');
      await tm.send(answerApproval, { approvalId: first.proposal!.approvalId!, decision: 'deny', reason: 'One task is enough', answeredBy: 'operator' });
      const second = await until(runId, (s) => s.phase === 'tasks-review' && s.rejections.length === 1, 'the second draft');
      expect(sessions.starts.filter((s) => s.kind === 'decomposition').at(-1)!.prompt).toContain('One task is enough');
      await tm.send(answerApproval, { approvalId: second.proposal!.approvalId!, decision: 'approve', answeredBy: 'operator' });
      const done = await completed(runId);
      expect(done.taskOrder).toEqual(['T1']);
      expect(done.tasks.T1.task.subject).toBe('Task T1 (redrafted)');
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a builder whose session hands off at the context threshold is continued by a fresh session of the same persona from the handoff, and the task finishes', async () => {
    const sessions = new ScriptedSessions(false);
    sessions.handsOff = (s) => s.kind === 'task' && /\.task\.T1\.a1$/.test(s.sessionId);
    const p = processWith(sessions);
    try {
      const { runId } = await start({ team: 'handoff', mode: 'v3' });
      const done = await completed(runId);
      const t1 = sessions.starts.filter((s) => s.kind === 'task' && s.sessionId.includes('.task.T1.'));
      expect(t1.map((s) => s.sessionId.slice(runId.length))).toEqual(['.task.T1.a1', '.task.T1.a1.h1']);
      expect(t1[1].persona).toBe(t1[0].persona);
      expect(t1[1].prompt).toContain('## Handoff From Your Previous Session');
      expect(t1[1].prompt).toContain('The second half');
      expect(done.tasks.T1).toMatchObject({ status: 'merged', attempts: 1 });
      expect((await eventsOf(runId)).filter((e) => e.type === 'run.escalated')).toEqual([]);
      // On the team board the continuing session renewed the claim's lease: one claim, then a heartbeat by the same owner.
      const { rows } = await tm.db.pool.query<{ type: string; owner: string }>(
        `SELECT type, data ->> 'owner' AS owner FROM team_manager.events WHERE data ->> 'taskId' = $1 AND type IN ('task.claimed', 'task.heartbeat') ORDER BY global_position`,
        [done.tasks.T1.teamTaskId],
      );
      expect(rows).toEqual([{ type: 'task.claimed', owner: t1[0].persona }, { type: 'task.heartbeat', owner: t1[0].persona }]);
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a builder session that outlasts its task lease keeps the task: the sweep renews the claim on the team board while it works', async () => {
    const sessions = new ScriptedSessions(false);
    sessions.hold = (s) => s.kind === 'task';
    const leaseMs = 1_200; // renewed every quarter (300 ms) by the 200 ms sweep
    const p = processWith(sessions, leaseMs);
    try {
      const { runId, teamTaskId, board, claimed } = await builderAtWork(sessions, 'long-task');
      const firstExpiry = Date.parse(claimed.leaseExpiresAt!);
      // Three leases later the session still works, and the board still names its persona with a live lease.
      await waitFor(async () => (Date.now() > firstExpiry + 2 * leaseMs ? true : undefined), { timeoutMs: 10_000, message: 'time to pass' });
      const held = await waitFor(async () => {
        const t = await board();
        return t && Date.parse(t.leaseExpiresAt!) > Date.now() ? t : undefined;
      }, { timeoutMs: 5_000, message: 'a live lease' });
      expect(held).toMatchObject({ status: 'claimed', owner: claimed.owner });
      const { rows } = await tm.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM team_manager.events WHERE data ->> 'taskId' = $1 AND type = 'task.heartbeat'`, [teamTaskId]);
      expect(Number(rows[0].n)).toBeGreaterThanOrEqual(3);
      await sessions.release();
      expect((await completed(runId)).tasks.T1).toMatchObject({ status: 'merged', attempts: 1 });
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a task the builder gives back mid-session (release_task) stays given back: the sweep renews claims, it does not take the task again', async () => {
    const sessions = new ScriptedSessions(false);
    sessions.hold = (s) => s.kind === 'task';
    const leaseMs = 1_200; // a renewal is due every 300 ms, the sweep runs every 200 ms
    const p = processWith(sessions, leaseMs);
    try {
      const { teamTaskId, board, claimed } = await builderAtWork(sessions, 'gives-back');
      // What the release_task tool sends for the agent.
      await tm.send(releaseTask, { team: 'gives-back', taskId: teamTaskId, owner: claimed.owner!, reason: 'The spec contradicts the existing API' });
      const releasedAt = Date.now();
      // Several renewal quarters later, with the session still at work, the task is still pending.
      await waitFor(async () => (Date.now() > releasedAt + 3 * leaseMs ? true : undefined), { timeoutMs: 10_000, message: 'time to pass' });
      expect(await board()).toMatchObject({ status: 'pending' });
      const { rows } = await tm.db.pool.query<{ type: string }>(
        `SELECT type FROM team_manager.events WHERE data ->> 'taskId' = $1 AND type IN ('task.claimed', 'task.released') ORDER BY global_position`,
        [teamTaskId],
      );
      expect(rows.map((r) => r.type)).toEqual(['task.claimed', 'task.released']);
    } finally {
      await sessions.release();
      await p.beforeApplicationShutdown();
    }
  });

  it('a builder that gives its task back (release_task) has failed that attempt, whatever its session says: nothing of it is merged, and the next attempt builds the task', async () => {
    const sessions = new ScriptedSessions(false);
    sessions.givesBack = (s) => s.kind === 'task' && s.sessionId.endsWith('.a1');
    const p = processWith(sessions);
    try {
      const { runId } = await start({ team: 'gave-up', mode: 'v1', tasks: [task('T1', [])] });
      const state = await completed(runId);
      expect(sessions.starts.filter((s) => s.kind === 'task').map((s) => s.sessionId.split('.').at(-1))).toEqual(['a1', 'a2']);
      const finished = (await eventsOf(runId)).flatMap((e) => (e.type === 'run.task-finished' ? [e.data] : []));
      expect(finished.map((f) => [f.attempt, f.outcome])).toEqual([[1, 'failed'], [2, 'completed']]);
      expect(finished[0].summary).toMatch(/^Gave the task back \(release_task\): The spec contradicts the existing API\n/);
      const merges = (await git(state.workspace!.dir, ['log', '--format=%s', '--merges'])).stdout.trim().split('\n');
      expect(merges.filter((m) => m.startsWith('Merge T1 '))).toEqual([expect.stringMatching(/^Merge T1 \(\w+\): Task T1$/)]);
      await poolsIdle();
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('a builder whose claim expired while no orchestrator ran gets its task back when a process resumes the run', async () => {
    const sessions = new ScriptedSessions(false);
    sessions.hold = (s) => s.kind === 'task';
    const leaseMs = 1_200;
    const first = processWith(sessions, leaseMs);
    const { runId, board, claimed } = await builderAtWork(sessions, 'lapsed');
    await first.beforeApplicationShutdown();
    await waitFor(async () => ((await board())?.status === 'pending' ? true : undefined), { timeoutMs: 10_000, message: "the team-manager to expire the builder's lease" });

    const second = processWith(sessions, leaseMs);
    try {
      const back = await waitFor(async () => ((await board())?.status === 'claimed' ? board() : undefined), { timeoutMs: 10_000, message: 'the task claimed again' });
      expect(back).toMatchObject({ owner: claimed.owner });
      await sessions.release();
      expect((await completed(runId)).tasks.T1).toMatchObject({ status: 'merged', attempts: 1 });
    } finally {
      await second.beforeApplicationShutdown();
    }
  });

  it('a process that stops mid-execution is replaced by another that finishes the run without starting any session twice', async () => {
    const sessions = new ScriptedSessions();
    sessions.hold = (s) => s.kind === 'task';
    const first = processWith(sessions);
    const { runId } = await start({ team: 'epsilon', mode: 'v3' });
    await waitFor(() => (sessions.starts.some((s) => s.kind === 'task') ? true : undefined), { timeoutMs: 30_000, message: 'a builder to start' });
    await first.beforeApplicationShutdown();
    await sessions.release(); // the session itself carries on, as the supervisor's would

    const second = processWith(sessions);
    try {
      const state = await completed(runId);
      const ids = sessions.starts.map((s) => s.sessionId);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of Object.keys(state.sessions)) {
        expect((await store.readStream(sessionStreamId(id))).filter((e) => e.type === 'session.started')).toHaveLength(1);
      }
      expect(Object.keys(state.sessions).filter((id) => id.includes('.task.T1.'))).toHaveLength(1);
      await poolsIdle();
    } finally {
      await second.beforeApplicationShutdown();
    }
  });

  it('a run that fails while its builders work gives their personas back to the pools when they finish', async () => {
    const sessions = new ScriptedSessions();
    sessions.hold = (s) => s.kind === 'task';
    const p = processWith(sessions);
    try {
      const { runId } = await start({ team: 'zeta', mode: 'v1', tasks: [task('A', []), task('B', [])] });
      await waitFor(() => (sessions.starts.filter((s) => s.kind === 'task').length === 2 ? true : undefined), { timeoutMs: 30_000, message: 'both builders to start' });
      // The persona board is a projection: both leases show there a moment after the sessions start.
      const leased = await waitFor(async () => ((await tm.send(listPersonas, {})).activeAgents === 2 ? true : undefined), { timeoutMs: 10_000, message: 'both personas leased' });
      expect(leased).toBe(true);
      const run = await RunRecorder.load(store, runId);
      await run.record({ type: 'fail-run', runId, reason: 'Stopped by the operator', now: new Date().toISOString() });
      await sessions.release();
      await poolsIdle();
      const state = await stateOf(runId);
      expect(state.status).toBe('failed');
      expect(Object.values(state.sessions).every((s) => s.ended && s.released)).toBe(true);
      expect(state.taskOrder.map((k) => state.tasks[k].status)).toEqual(['running', 'running']);
    } finally {
      await p.beforeApplicationShutdown();
    }
  });

  it('the runs list pages newest first, and a rebuilt projection equals the live one', async () => {
    const runs = async (cursor?: string) => tm.send(listRuns, { limit: 2, ...(cursor ? { cursor } : {}) });
    await projection.runner.waitUntilCaughtUp();
    const all: string[] = [];
    let page = await runs();
    for (;;) {
      all.push(...page.runs.map((r) => r.runId));
      if (!page.nextCursor) break;
      page = await runs(page.nextCursor);
    }
    // Every run started in this file (one per spec above) is listed exactly once.
    const { rows: started } = await tm.db.pool.query<{ run_id: string }>(`SELECT data ->> 'runId' AS run_id FROM orchestrator.events WHERE type = 'run.started'`);
    expect(started.length).toBeGreaterThanOrEqual(7);
    expect([...all].sort()).toEqual(started.map((r) => r.run_id).sort());
    const live = (await tm.db.pool.query('SELECT phase, leases_held FROM orchestrator.runs ORDER BY run_id')).rows;
    // Every spec's run completed but the one the operator stopped.
    expect(live.filter((r) => r.phase !== 'completed').map((r) => r.phase)).toEqual(['failed']);
    expect(live.every((r) => r.leases_held === 0)).toBe(true);
    // Every column, updated_at included: it comes from the run's events, not the clock.
    await expectRebuiltEqualsLive(projection, tm.db.pool);
  });
});
