import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rename, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceOpenProbe } from '@headspace/agent-runtime';
import { createTeam, importManifest, sessionStreamId } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
import type { SessionEvent } from './agent-session.decider';
import { startSessionsOnSimulator } from './testing/sessions-on-simulator.harness';
import { SessionSupervisor, type SessionStart } from './session-supervisor';

// Red-team cases for the agent's own tools (issue #19), through the real runtime on the
// simulator: a scripted agent tries each escape and every attempt is recorded as a tool error.
// The sandbox cases (Bash inside bubblewrap) live with the sandbox.

const team = 'red-team-tools';
const MANIFEST = `team: ${team}
description: The tools red-team spec's team
members:
  - name: vic
    role: Tries to escape the workspace
    tools: [Read, Grep, "Bash(git:*)"]
    owns: ["**"]
`;

let h: CostGovernorHarness;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-red-team-tools-'));
  ({ h, supervisor, store } = await startSessionsOnSimulator({ name: 'red-team-tools', root, scenarios: join(__dirname, 'testing', 'red-team-tools') }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await h.send(importManifest, { yaml: MANIFEST });
});

afterAll(async () => {
  workspaceOpenProbe.beforeOpen = undefined;
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('red team: the agent tools on the simulator', () => {
  it('a swapped-in symlink, a catastrophic regex and `git log > ../outside` all end as tool errors and the host stays responsive', async () => {
    const workspace = join(root, 'ws');
    const outside = join(root, 'outside-dir');
    await mkdir(join(workspace, 'notes'), { recursive: true });
    await mkdir(outside);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init'], { cwd: workspace });
    await writeFile(join(workspace, 'notes', 'todo.txt'), 'inside\n');
    await writeFile(join(outside, 'todo.txt'), 'SECRET root:x:0:0\n');
    await writeFile(join(workspace, 'evil.txt'), `${'a'.repeat(50_000)}!\n`);

    // The swap a racing process would make, placed after every path check and before the open.
    let swapped = false;
    workspaceOpenProbe.beforeOpen = async (absolute) => {
      if (swapped || !absolute.endsWith(join('notes', 'todo.txt'))) return;
      swapped = true;
      await rename(join(workspace, 'notes'), join(workspace, 'notes.real'));
      await symlink(outside, join(workspace, 'notes'));
    };

    // The event loop must keep turning while the session runs (lease renewals ride on it).
    let maxLagMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxLagMs = Math.max(maxLagMs, now - last - 20);
      last = now;
    }, 20);

    const sessionId = randomUUID();
    const start: SessionStart = {
      sessionId, team, persona: 'vic', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true,
      prompt: 'Escape if you can.', workspace, situation: 'red-team-tools',
    };
    const ended = supervisor.whenEnded(sessionId);
    await supervisor.start(start);
    await ended;
    clearInterval(ticker);
    workspaceOpenProbe.beforeOpen = undefined;

    const events = (await store.readStream(sessionStreamId(sessionId))) as Array<RecordedEvent & SessionEvent>;
    const calls = events.filter((e) => e.type === 'session.tool-called').map((e) => e.data as { tool: string; isError: boolean; content: string; durationMs: number });
    expect(calls.map((c) => c.tool)).toEqual(['Read', 'Grep', 'Bash']);
    const [read, grep, bash] = calls;

    expect(swapped).toBe(true);
    expect(read).toMatchObject({ isError: true, content: expect.stringContaining('replaced by a symlink after it was checked') });
    expect(read.content).not.toContain('SECRET');

    // RE2 answers in one pass: a count, not a hang (a backtracking engine would never return).
    expect(grep).toMatchObject({ isError: false, content: 'evil.txt:1\n(1 file)' });
    expect(grep.durationMs).toBeLessThan(5_000);

    expect(bash).toMatchObject({ isError: true, content: expect.stringContaining('redirects to a file (> ../outside.txt)') });
    expect(await readdir(root)).not.toContain('outside.txt');

    expect(maxLagMs).toBeLessThan(2_000);
  });
});
