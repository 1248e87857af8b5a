import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, getBudget, getSpend, importManifest, listApprovals, sessionStreamId, setBudget, type EventData, type sessionStarted } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { waitFor } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
import type { SessionEvent } from './agent-session.decider';
import { startSessionsOnSimulator } from './testing/sessions-on-simulator.harness';
import { SESSION_PORTS_FACTORY, SessionSupervisor, type SessionPortsFactory, type SessionStart } from './session-supervisor';

const team = 'sessions';
const SONNET = 'claude-sonnet-4-6';
const HAIKU = 'claude-haiku-4-5-20251001';

const MANIFEST = `team: ${team}
description: The sessions spec's team
members:
  - name: con
    role: Builds small helpers test-first
    tools: [Read, Write, Edit, "Bash(node:*)"]
    owns: ["src/**", "test/**"]
`;

let h: CostGovernorHarness;
let orchestrator: NestFastifyApplication;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

type Recorded = RecordedEvent & SessionEvent;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-sessions-'));
  ({ h, orchestrator, supervisor, store } = await startSessionsOnSimulator({ name: 'sessions', root, scenarios: join(__dirname, 'testing', 'scenarios') }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await h.send(importManifest, { yaml: MANIFEST });
});

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function gitWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(root, 'ws-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

/** Starts a builder session on the simulator and waits for it to end. */
async function runSession(persona: string, situation: string, workspace: string, prompt: string, sessionId = randomUUID()) {
  const start: SessionStart = { sessionId, team, persona, kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt, workspace, situation };
  const ended = supervisor.whenEnded(sessionId);
  await supervisor.start(start);
  const outcome = await ended;
  const events = (await store.readStream(sessionStreamId(sessionId))) as Recorded[];
  const of = <T extends SessionEvent['type']>(type: T) => events.filter((e) => e.type === type) as Array<Recorded & Extract<SessionEvent, { type: T }>>;
  return { sessionId, outcome, events, of };
}

const textOf = (content: Array<Record<string, unknown>>) =>
  content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text))
    .join('\n');

describe('agent sessions on real ports (simulator, real team-manager and cost governor)', () => {
  it('a session on the simulator completes a small coding task in a temp git workspace', async () => {
    const workspace = await gitWorkspace();
    const { sessionId, outcome, of } = await runSession('con', 'implement-task', workspace, 'Add a slugify(text) helper in src/slugify.mjs, test first.');

    expect(outcome.exitReason).toBe('completed');
    expect(await readFile(join(workspace, 'src', 'slugify.mjs'), 'utf8')).toContain('.replace(/[^a-z0-9]+/g');
    expect(await readFile(join(workspace, 'test', 'slugify.test.mjs'), 'utf8')).toContain("slugify('Ship it!  Now?')");
    expect(execFileSync(process.execPath, ['--test', 'test/slugify.test.mjs'], { cwd: workspace, encoding: 'utf8' })).toMatch(/(ℹ|#) fail 0/);

    // Bash really ran `node --test`: first failing on the buggy version, then passing after the Edit.
    const calls = of('session.tool-called').map((e) => e.data);
    expect(calls.map((c) => c.tool)).toEqual(['Write', 'Write', 'Bash', 'Edit', 'Bash']);
    const [failing, passing] = calls.filter((c) => c.tool === 'Bash');
    expect(failing.content).toMatch(/(ℹ|#) fail 1/);
    expect(passing.content).toMatch(/(ℹ|#) pass 2/);
    expect(passing.isError).toBe(false);
    expect(calls.flatMap((c) => c.filesModified)).toEqual(expect.arrayContaining(['test/slugify.test.mjs', 'src/slugify.mjs']));

    const [reflected] = of('session.reflected');
    expect(reflected.data).toMatchObject({ malformed: false, reflection: { task_result: { status: 'completed' } } });

    // Every turn was asked for and paid for in the cost governor.
    expect(of('session.budget-decided').map((e) => e.data.decision)).toEqual(Array(outcome.turns).fill('allowed'));
    await h.caughtUp();
    const spend = await h.send(getSpend, { sessionId, groupBy: 'persona' });
    expect(spend.groups).toEqual([expect.objectContaining({ key: 'con', calls: outcome.turns })]);
    expect(BigInt(spend.total.costMicros)).toBeGreaterThan(0n);

    // What it learned is in Con's learnings.md.
    const learnings = join(root, 'agents', 'personas', 'con', 'learnings.md');
    expect(await waitFor(async () => (await readFile(learnings, 'utf8').catch(() => '')).includes('Slug helpers must strip punctuation'), { message: "Con's learnings" })).toBe(true);
  });

  it('a builder listed in the team manifest gets its identity, owned paths and situation in the system prompt, and its tools limited to the manifest', async () => {
    const workspace = await gitWorkspace();
    const factory = orchestrator.get<SessionPortsFactory>(SESSION_PORTS_FACTORY);
    const started: EventData<typeof sessionStarted> = {
      sessionId: randomUUID(),
      team,
      persona: 'con',
      kind: 'task',
      model: 'sonnet',
      effort: 'quick',
      runtime: 'built-in',
      simulated: true,
      prompt: 'Look around.',
      workspace,
      situation: 'implement-task',
      startedAt: new Date().toISOString(),
    };
    const { ports, close } = await factory.create(started);
    try {
      const system = String(ports.system[0].text);
      expect(system).toMatch(/^# Team Member: Con$/m);
      expect(system).toContain('Role: Builds small helpers test-first');
      expect(system).toContain('Owns: src/**, test/**');
      expect(system).toMatch(/^Situation: implement-task$/m);
      expect(system.indexOf('Owns:')).toBeLessThan(system.indexOf('## Reflection Protocol'));

      const git = await ports.tools.run({ id: 'toolu_git', name: 'Bash', input: { command: 'git status' } });
      expect(git).toMatchObject({ isError: true, content: expect.stringContaining('Bash(node:*)') });
      const outside = await ports.tools.run({ id: 'toolu_docs', name: 'Write', input: { file_path: 'docs/notes.md', content: 'x' } });
      expect(outside).toMatchObject({ isError: true, content: expect.stringMatching(/lock_file/) });
      const inside = await ports.tools.run({ id: 'toolu_src', name: 'Write', input: { file_path: 'src/notes.mjs', content: 'export {};\n' } });
      expect(inside).toMatchObject({ isError: false, filesModified: ['src/notes.mjs'] });
    } finally {
      await close?.();
    }
  });

  it('a dangerous Bash call is denied by the security guard and the model reads the reason and takes a safer path', async () => {
    const workspace = await gitWorkspace();
    await mkdir(join(workspace, 'dist'));
    await writeFile(join(workspace, 'dist', 'bundle.js'), 'stale\n');
    await writeFile(join(workspace, 'keep.txt'), 'keep me\n');
    const { of } = await runSession('mark', 'clean-workspace', workspace, 'Clean the stale build output.');

    const [denied, scoped] = of('session.tool-called').map((e) => e.data);
    expect(denied).toMatchObject({ tool: 'Bash', isError: true, content: expect.stringContaining('security guard (rm-rf-root)') });
    expect(denied.hooks).toContainEqual(expect.objectContaining({ event: 'PreToolUse', decision: 'deny', reason: expect.stringContaining('security guard') }));
    const secondReply = of('session.model-called')[1].data;
    expect(textOf(secondReply.content)).toContain('Blocked by the security guard (rm-rf-root)');
    expect(scoped).toMatchObject({ tool: 'Bash', isError: false });
    await expect(stat(join(workspace, 'dist'))).rejects.toThrow(/ENOENT/);
    expect(await readFile(join(workspace, 'keep.txt'), 'utf8')).toBe('keep me\n');
  });

  it('a session whose budget crosses 80% mid-session makes its next calls on the cheaper model and still completes', async () => {
    const sessionId = randomUUID();
    // Three $0.32 Sonnet turns reach ~84% of $1.15; the rest, on Haiku, stays under 95%.
    await h.send(setBudget, { scope: { kind: 'session', sessionId }, limitUsd: '1.15', setBy: 'spec' });
    const { outcome, of } = await runSession('ned', 'budget-ladder', await gitWorkspace(), 'Run the four steps.', sessionId);

    expect(outcome.exitReason).toBe('completed');
    expect(of('session.budget-decided').map((e) => e.data.decision)).toEqual(['allowed', 'allowed', 'allowed', 'downgraded', 'allowed']);
    expect(of('session.budget-decided')[3].data.reason).toContain('Approaching budget limit (80%)');
    expect(of('session.model-called').map((e) => e.data.model)).toEqual([SONNET, SONNET, SONNET, HAIKU, HAIKU]);
    expect(await h.send(getBudget, { budgetId: `session.${sessionId}` })).toMatchObject({ status: 'active', warned: true });
  });

  it('a session whose budget reaches 95% ends budget_paused with a budget-overrun approval waiting for a person', async () => {
    const sessionId = randomUUID();
    // Two Sonnet turns reach ~87% of $0.75 (downgrade); the third, on Haiku, passes 95% (pause).
    await h.send(setBudget, { scope: { kind: 'session', sessionId }, limitUsd: '0.75', setBy: 'spec' });
    const { outcome, of } = await runSession('ned', 'budget-ladder', await gitWorkspace(), 'Run the four steps.', sessionId);

    expect(outcome.exitReason).toBe('budget_paused');
    expect(of('session.budget-decided').map((e) => e.data.decision)).toEqual(['allowed', 'allowed', 'downgraded', 'paused']);
    expect(of('session.model-called').map((e) => e.data.model)).toEqual([SONNET, SONNET, HAIKU]);
    expect(await h.send(getBudget, { budgetId: `session.${sessionId}` })).toMatchObject({ status: 'paused' });
    // The governor asks the team-manager for the approval after the pause is recorded.
    const approval = await waitFor(
      async () => {
        const { approvals } = await h.send(listApprovals, { team, kind: 'budget-overrun' });
        return approvals.find((a) => (a.payload as { budgetId?: string }).budgetId === `session.${sessionId}`);
      },
      { message: 'the budget-overrun approval' },
    );
    expect(approval).toMatchObject({ status: 'pending', requester: 'cost-governor', summary: 'Budget 95% consumed. Continue?' });
  });
});
