import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, getSpend, importManifest, sessionStreamId, setBudget, updatePersona } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { findClaudeCli, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
import { SessionRuntimes } from '../../runs/session-runtime';
import type { SessionEvent } from '../agent-session.decider';
import { SessionSupervisor, type SessionStart } from '../session-supervisor';
import { startSessionsOnSimulator } from '../testing/sessions-on-simulator.harness';

/**
 * A builder task of the example run (word-stats, task T1) on the Claude Code runtime: the real CLI
 * binary of the dev dependency, pointed by the orchestrator at its in-process simulator, recorded
 * in the session's stream like a built-in session.
 */

const team = 'claude-code';
const repo = join(__dirname, '..', '..', '..', '..', '..');
const MANIFEST = `team: ${team}
description: The Claude Code runtime spec's team
members:
  - name: con
    role: Builds the word-stats library test-first
    runtime: claude-code
    tools: [Read, Write, Edit, Bash]
    owns: ["src/**", "test/**"]
`;

let h: CostGovernorHarness;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

type Recorded = RecordedEvent & SessionEvent;

beforeAll(async () => {
  const binary = findClaudeCli();
  if (binary === undefined) throw new Error('the @anthropic-ai/claude-code platform binary is not installed (npm ci)');
  root = await mkdtemp(join(tmpdir(), 'hs-claude-sessions-'));
  ({ h, supervisor, store } = await startSessionsOnSimulator({
    name: 'claudecode',
    root,
    scenarios: join(repo, 'examples', 'scenarios', 'word-stats'),
    // a small worst case per call: the governor lets a session with a few cents left start the CLI
    orchestratorEnv: { HS_CLAUDE_BINARY: binary, SESSION_MAX_OUTPUT_TOKENS: '256' },
  }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await h.send(importManifest, { yaml: MANIFEST });
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function wordStatsCheckout(): Promise<string> {
  const dir = await mkdtemp(join(root, 'ws-'));
  await cp(join(repo, 'examples', 'word-stats'), dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '.');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'word-stats');
  return dir;
}

async function runSession(sessionId = randomUUID()) {
  const workspace = await wordStatsCheckout();
  const start: SessionStart = {
    sessionId,
    team,
    persona: 'con',
    kind: 'task',
    model: 'sonnet',
    effort: 'standard',
    runtime: 'claude-code',
    simulated: true,
    prompt: 'Task T1: Add topWords(text, n) to src/word-stats.js: the n most frequent words, most frequent first.',
    workspace,
    situation: 'implement-task',
  };
  const ended = supervisor.whenEnded(sessionId);
  await supervisor.start(start);
  const outcome = await ended;
  const events = (await store.readStream(sessionStreamId(sessionId))) as Recorded[];
  const of = <T extends SessionEvent['type']>(type: T) => events.filter((e) => e.type === type) as Array<Recorded & Extract<SessionEvent, { type: T }>>;
  return { sessionId, workspace, outcome, of, end: of('session.ended')[0]?.data };
}

describe('Claude Code sessions (the real CLI against the simulator)', () => {
  it('a session runs word-stats task T1 and records model calls, tool calls with results, usage, simulated cost, the reflection and the end', async () => {
    const { sessionId, workspace, outcome, of, end } = await runSession();

    expect(end?.error, JSON.stringify(end)).toBeUndefined();
    expect(outcome.exitReason).toBe('completed');
    expect(of('session.budget-decided').map((e) => e.data.decision)).toEqual(['allowed']);
    const calls = of('session.model-called').map((e) => e.data);
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.map((c) => c.turn)).toEqual(calls.map((_, i) => i + 1));
    expect(new Set(calls.map((c) => c.model))).toEqual(new Set(['claude-sonnet-4-6']));
    expect(calls.every((c) => c.usage.outputTokens > 0)).toBe(true);
    const tools = of('session.tool-called').map((e) => e.data);
    expect(tools.map((t) => t.tool)).toEqual(expect.arrayContaining(['Read', 'Edit', 'Write', 'Bash']));
    expect(tools.find((t) => t.tool === 'Bash')).toMatchObject({ isError: false });
    expect(tools.find((t) => t.tool === 'Bash')?.content).toMatch(/pass/);
    expect(end).toMatchObject({ exitReason: 'completed', toolsUsed: expect.arrayContaining(['Read', 'Edit', 'Write', 'Bash']) });
    expect(end?.filesModified).toEqual(expect.arrayContaining(['src/word-stats.js', 'test/top-words.test.js']));
    expect(end?.usage.outputTokens).toBe(calls.reduce((n, c) => n + c.usage.outputTokens, 0));
    // the CLI prints one output token per message; the result's modelUsage has the real count
    expect(end!.usage.outputTokens).toBeGreaterThan(calls.length * 10);
    expect(of('session.reflected')[0]?.data).toMatchObject({ malformed: false, reflection: { task_result: { status: 'completed' } } });
    expect(await readFile(join(workspace, 'src', 'word-stats.js'), 'utf8')).toContain('function topWords');
    expect(await readFile(join(workspace, 'test', 'top-words.test.js'), 'utf8')).toContain('topWords breaks ties alphabetically');

    // Every call settled with the governor: the session's spend is its calls' tokens, costed.
    const spend = await h.send(getSpend, { sessionId, groupBy: 'persona' });
    expect(spend.total).toMatchObject({ calls: calls.length, outputTokens: end!.usage.outputTokens });
    expect(Number(spend.total.costMicros)).toBeGreaterThan(0);
    expect(of('session.started')[0]?.data).toMatchObject({ runtime: 'claude-code', simulated: true });
    expect(calls.some((c) => c.content.some((b) => b.type === 'text' && String(b.text).startsWith('[simulated]')))).toBe(true);
  }, 240_000);

  it('a session whose budget cannot pay for the run is stopped by the CLI’s --max-budget-usd, set from what the budget has left', async () => {
    const sessionId = randomUUID();
    // the CLI's first call alone writes ~12.6K prompt tokens to the cache (~$0.047 on Sonnet)
    await h.send(setBudget, { scope: { kind: 'session', sessionId }, limitUsd: '0.03', setBy: 'spec' });
    const { outcome, of, end } = await runSession(sessionId);
    expect(of('session.budget-decided').map((e) => e.data.decision)).toEqual(['allowed']);
    expect(outcome).toMatchObject({ exitReason: 'budget_stopped', turns: 1 });
    expect(end?.error).toContain('error_max_budget_usd');
    // the call that crossed the limit is still recorded and settled: the backstop stops the next one
    expect(of('session.model-called')).toHaveLength(1);
    const spend = await h.send(getSpend, { sessionId, groupBy: 'persona' });
    expect(spend.total.calls).toBe(1);
    expect(Number(spend.total.costMicros)).toBeGreaterThan(30_000);
  });

  it('a session the governor will not pay for ends as it decides, without starting the CLI', async () => {
    const sessionId = randomUUID();
    await h.send(setBudget, { scope: { kind: 'session', sessionId }, limitUsd: '0.001', setBy: 'spec' });
    const { outcome, of, end } = await runSession(sessionId);
    expect(outcome.exitReason).toBe('budget_stopped');
    expect(of('session.budget-decided').map((e) => e.data.decision)).toEqual(['stopped']);
    expect(of('session.model-called')).toEqual([]);
    expect(end).toMatchObject({ exitReason: 'budget_stopped', summary: expect.stringContaining('cannot cover the worst case'), turns: 0 });
  });

  it('a session’s runtime is the run’s, else its team member’s (manifest), else its persona’s default, else built-in', async () => {
    const runtimes = new SessionRuntimes(h.nc);
    expect(await runtimes.of({ team, persona: 'con' })).toBe('claude-code');
    expect(await runtimes.of({ team, persona: 'con', runtime: 'built-in' })).toBe('built-in');
    expect(await runtimes.of({ team, persona: 'may' })).toBe('built-in');
    await h.send(updatePersona, { personaId: 'may', runtime: 'claude-code' });
    // the persona board is a projection: the update shows there a moment later
    await waitFor(async () => ((await runtimes.of({ team, persona: 'may' })) === 'claude-code' ? true : undefined), { timeoutMs: 10_000, message: 'may’s runtime' });
    expect(await runtimes.of({ team, persona: 'may', runtime: 'built-in' })).toBe('built-in');
  });

  it('a manifest naming an unknown runtime is refused, naming the field', async () => {
    await expect(h.send(importManifest, { yaml: MANIFEST.replace('runtime: claude-code', 'runtime: claude') })).rejects.toMatchObject({ field: 'members.0.runtime' });
  });
});
