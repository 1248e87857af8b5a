import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpsProject, createTeam, getGroup, listGroups, listOpsProjects, runStreamId, sessionStreamId } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';
import { loadConfig } from '@headspace/platform';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OpsLeonModule } from '../../../../ops-leon/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as OPS_LEON, configSchema as opsLeonConfig } from '../../../../ops-leon/src/config';
import type { SessionSupervisor } from '../session-supervisor';
import { startSessionsOnSimulator } from '../testing/sessions-on-simulator.harness';

const team = 'shop-team';
/** A user-scope PreToolUse command hook that blocks every Bash call with exit 2. */
const FAILING_HOOK = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "lint: tabs are not allowed" >&2; exit 2' }] }] } };

let h: CostGovernorHarness;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-hookfail-'));
  ({ h, supervisor, store } = await startSessionsOnSimulator({ name: 'hookfail', root, scenarios: join(__dirname, 'scenarios') }));
  await h.addCompanion(OpsLeonModule.forRoot(loadConfig(opsLeonConfig, h.env, OPS_LEON)));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await mkdir(join(root, 'agents', '.headspace'), { recursive: true });
  await writeFile(join(root, 'agents', '.headspace', 'settings.json'), JSON.stringify(FAILING_HOOK));
});

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A run that only names its source: started and failed at once, so the run process leaves it alone. */
async function recordedRun(source: string): Promise<string> {
  const runId = randomUUID();
  const at = new Date().toISOString();
  await store.append(
    runStreamId(runId),
    [
      {
        type: 'run.started',
        data: { runId, team, goal: 'Fix the shop', title: 'Fix the shop', source, mode: 'v1', operator: 'auto', limits: { maxQaRounds: 3, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 }, roster: { pools: {}, names: {} }, simulated: true, startedAt: at },
      },
      { type: 'run.failed', data: { runId, reason: 'spec: only its source is used', at } },
    ],
    { expected: 'no-stream' },
  );
  return runId;
}

describe('agent hook failures reach Leon as exceptions of the project the session ran in', () => {
  it("a session on the simulator whose command hook exits 2 files a HookBlockingError under the ops project whose repository is the run's source", async () => {
    const source = await mkdtemp(join(root, 'shop-'));
    execFileSync('git', ['init', '-q'], { cwd: source });
    await h.send(createOpsProject, { project: 'shop', repository: `${source}/` });
    await h.send(createOpsProject, { project: 'billing', repository: join(root, 'billing') });
    await waitFor(async () => (await h.send(listOpsProjects, {})).projects.length === 2, { message: 'both projects in the read model' });

    const runId = await recordedRun(source);
    const sessionId = randomUUID();
    const workspace = await mkdtemp(join(root, 'ws-'));
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    const ended = supervisor.whenEnded(sessionId);
    await supervisor.start({ sessionId, runId, team, persona: 'ned', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Lint the shop.', workspace, situation: 'hook-failure' });
    expect((await ended).exitReason).toBe('completed');

    // The session records the hook's decision as before…
    const calls = (await store.readStream(sessionStreamId(sessionId))).filter((e) => e.type === 'session.tool-called').map((e) => e.data as { hooks: Array<{ event: string; decision: string; reason?: string }> });
    expect(calls[0].hooks).toContainEqual({ event: 'PreToolUse', decision: 'deny', reason: 'lint: tabs are not allowed' });

    // …and Leon has it as an exception of the shop.
    const [group] = await waitFor(async () => {
      const { items } = await h.send(listGroups, { project: 'shop' });
      return items.length > 0 ? items : undefined;
    }, { message: 'a group in project shop' });
    expect(group).toMatchObject({ project: 'shop', type: 'HookBlockingError', level: 'warning', count: 1 });
    const [sample] = (await h.send(getGroup, { groupId: group.groupId })).samples;
    expect(sample).toMatchObject({
      source: 'hook',
      serverName: 'orchestrator',
      message: expect.stringContaining('lint: tabs are not allowed'),
      tags: expect.objectContaining({ origin: 'hook', run_id: runId, session_id: sessionId, team, persona: 'ned', hook_event: 'PreToolUse', hook_type: 'command', hook_exit_code: '2', hook_command: FAILING_HOOK.hooks.PreToolUse[0].hooks[0].command }),
    });
    expect((await h.send(listGroups, { project: 'billing' })).items).toEqual([]);
  });
});
