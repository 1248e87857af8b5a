import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTeam, EventRegistry, sessionEvents, sessionStreamId } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { loadConfig } from '@headspace/platform';
import { freePort, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startCostGovernor, type CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
import { SessionRecorder } from './session-recorder';

const repo = resolve(__dirname, '../../../..');
const team = 'crash-session';

/**
 * The orchestrator as a real process on its TypeScript sources, SIGKILLed (no shutdown hook runs)
 * in the middle of a session, then started again: the new process takes the orphaned session over
 * once its lease expires and resumes it from its stream. The scenario appends one line per tool
 * call, so a completed call run twice would show as a duplicate line.
 */
describe('orchestrator killed mid-session', () => {
  let h: CostGovernorHarness;
  let store: EventStore;
  let root: string;
  let orchestrator: ChildProcess | undefined;
  let output = '';

  async function startOrchestrator(): Promise<ChildProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(repo, 'apps', 'orchestrator', 'src', 'main.ts')], {
      cwd: repo,
      env: {
        ...process.env,
        ...h.env,
        SWC_NODE_PROJECT: join(repo, 'tsconfig.json'),
        HTTP_PORT: String(port),
        ANTHROPIC_API_KEY: '',
        HS_SIMULATOR_SCENARIOS: join(__dirname, 'testing', 'scenarios'),
        HS_WORKSPACES_DIR: join(root, 'runs'),
        HS_AGENT_HOME: join(root, 'agents'),
        SESSION_LEASE_MS: '2000',
        SESSION_SWEEP_MS: '300',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`orchestrator exited with ${child.exitCode}: ${output}`);
        return (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 90_000, intervalMs: 100, message: 'the orchestrator to be ready' },
    );
    return child;
  }

  const kill = async (child: ChildProcess) => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };

  const events = (sessionId: string) => store.readStream(sessionStreamId(sessionId));

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hs-session-crash-'));
    h = await startCostGovernor('sesscrash');
    await h.addCompanion(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, h.env, TEAM_MANAGER)));
    await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
    store = new EventStore({ pool: h.db.pool, schema: 'orchestrator', registry: new EventRegistry([...sessionEvents]) });
    orchestrator = await startOrchestrator();
  }, 180_000);

  afterAll(async () => {
    if (orchestrator && orchestrator.exitCode === null) await kill(orchestrator);
    await h?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('a session killed after a completed tool call is resumed by a restarted orchestrator without running that call again', async () => {
    const workspace = await mkdtemp(join(root, 'ws-'));
    const sessionId = randomUUID();
    // What SessionSupervisor.start records; with no instance holding its lease, the sweep launches it.
    await (
      await SessionRecorder.load(store, sessionId)
    ).record({
      type: 'start-session',
      sessionId,
      team,
      persona: 'ned',
      kind: 'task',
      model: 'sonnet',
      effort: 'quick',
      runtime: 'built-in',
      simulated: true,
      prompt: 'Append two lines to appended.log.',
      workspace,
      situation: 'append-lines',
      now: new Date().toISOString(),
    });

    // Killed while the second call (a sleep) runs: the first line is appended and its call recorded.
    await waitFor(async () => (await events(sessionId)).some((e) => e.type === 'session.tool-called') || undefined, {
      timeoutMs: 60_000,
      intervalMs: 10,
      message: 'the first tool call to be recorded',
    });
    await kill(orchestrator!);
    const atKill = await events(sessionId);
    expect(atKill.filter((e) => e.type === 'session.tool-called')).toHaveLength(1);
    expect(atKill.some((e) => e.type === 'session.ended')).toBe(false);
    expect(await readFile(join(workspace, 'appended.log'), 'utf8')).toBe('one\n');

    orchestrator = await startOrchestrator();
    const ended = await waitFor(async () => (await events(sessionId)).find((e) => e.type === 'session.ended'), {
      timeoutMs: 90_000,
      intervalMs: 100,
      message: 'the resumed session to end',
    });

    expect(ended.data).toMatchObject({ exitReason: 'completed' });
    expect(await readFile(join(workspace, 'appended.log'), 'utf8')).toBe('one\ntwo\n');
    const calls = (await events(sessionId)).filter((e) => e.type === 'session.tool-called').map((e) => e.data as { toolUseId: string; content: string });
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.toolUseId)).size).toBe(3);
  }, 300_000);
});
