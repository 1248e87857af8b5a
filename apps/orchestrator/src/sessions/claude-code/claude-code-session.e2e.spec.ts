import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, getSpend, importManifest, sessionStreamId, setBudget, updatePersona } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { renderHandoffMarkdown } from '@headspace/agent-runtime';
import { findClaudeCli, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
import { SessionRuntimes } from '../../runs/session-runtime';
import type { SessionEvent } from '../agent-session.decider';
import { SessionSupervisor, type SessionStart } from '../session-supervisor';
import { LlmBackendProvider } from '../ports/llm-backend.provider';
import { startSessionsOnSimulator, type SessionsOnSimulator } from '../testing/sessions-on-simulator.harness';

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
let orchestrator: SessionsOnSimulator['orchestrator'];
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

type Recorded = RecordedEvent & SessionEvent;

/** The team's hooks for every session (user scope of the agent home): no `rm`, a word on every Bash result. */
const TEAM_HOOKS = {
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `grep -q '"command":"rm ' && echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"team rule: no rm here"}}' || true` }] }],
  },
};

/** A CLI session that tries `rm` and then carries on. */
const bash = (command: string) => ({ tool_use: [{ name: 'Bash', input: { command, description: 'probe' } }] });
const outsideDir = join(tmpdir(), `hs-cc-outside-${randomUUID()}`);

/** A CLI session whose Bash probes its sandbox. */
const SANDBOX_SCENARIO = {
  id: 'cc-sandbox',
  persona: '*',
  situation: 'cc-sandbox',
  prompt: '^Task S1:',
  steps: [
    bash('for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done 2>/dev/null | cut -d= -f1 | sort -u | tr "\\n" " "; echo END'),
    bash(`cat ${join(outsideDir, 'secret.txt')}`),
    bash('(exec 3<>/dev/tcp/127.0.0.1/4222 && echo NATS-REACHED); (exec 3<>/dev/tcp/127.0.0.1/5432 && echo PG-REACHED); echo PROBED'),
    bash('echo made > src/made-inside.txt && id -u'),
    { text: 'Probed.', structured: { task_result: { status: 'completed', summary: 'Probed the sandbox.', files_changed: [] }, reflection: { what_worked: 'probing', what_didnt: 'nothing', confidence: 'high' }, suggested_learnings: [], follow_up: { needs_human: false } } },
  ],
};

const HANDOFF_DOC = [
  '# Handoff: Con — Session 2026-11-26T00:00:00Z',
  '',
  '## Task',
  'Count the words of the corpus',
  '',
  '## Status',
  'In progress — 40% complete',
  '',
  '## What Was Done',
  '- Started the slow count',
  '',
  '## What Remains',
  '- Write the totals to src/totals.txt',
  '',
  '## Blockers / Notes',
  '_none_',
  '',
  '## Files Modified',
  '_none_',
  '',
  '## Suggested Next Steps',
  '1. Write src/totals.txt',
].join('\n');

/** A CLI session whose context fills after its first call (the simulator reports 170K cache-read tokens of 200K: cheap, so no budget stops it first): it hands off. */
const HANDOFF_SCENARIO = {
  id: 'cc-handoff',
  persona: '*',
  // no prompt pattern: the resumed conversation is matched by its situation alone
  situation: 'cc-handoff',
  interrupts: [{ user_text: 'write the handoff', text: `Packing up for the next session.\n\n${HANDOFF_DOC}` }],
  steps: [
    { text: 'Counting, slowly.', usage: { cache_read_input_tokens: 170_000 }, tool_use: [{ name: 'Bash', input: { command: 'echo late > src/late.txt', description: 'count' } }] },
    { text: 'Not reached: the session handed off.', structured: { task_result: { status: 'completed', summary: 'Should not happen.', files_changed: [] }, reflection: { what_worked: 'x', what_didnt: 'x', confidence: 'low' }, suggested_learnings: [], follow_up: { needs_human: false } } },
  ],
};

/** The fresh session the run starts after a handoff, its prompt seeded with the document (run-prompts.ts). */
const HANDOFF_NEXT_SCENARIO = {
  id: 'cc-handoff-next',
  persona: '*',
  situation: 'cc-handoff',
  prompt: '^Task C1 \\(continued\\):',
  steps: [
    { tool_use: [{ name: 'Write', input: { file_path: 'src/totals.txt', content: 'words: 42\n' } }] },
    { text: 'Finished from the handoff.', structured: { task_result: { status: 'completed', summary: 'Wrote the totals from the handoff.', files_changed: ['src/totals.txt'] }, reflection: { what_worked: 'the handoff', what_didnt: 'nothing', confidence: 'high' }, suggested_learnings: [], follow_up: { needs_human: false } } },
  ],
};

const HOOKS_SCENARIO = {
  id: 'cc-team-hooks',
  persona: '*',
  situation: 'cc-team-hooks',
  prompt: '^Task H1:',
  steps: [
    { tool_use: [{ name: 'Bash', input: { command: 'rm README.md', description: 'remove the readme' } }] },
    { tool_use: [{ name: 'Bash', input: { command: 'ls src', description: 'list' } }] },
    { text: 'Left the readme in place.', structured: { task_result: { status: 'completed', summary: 'Kept the readme.', files_changed: [] }, reflection: { what_worked: 'listening to the hook', what_didnt: 'rm', confidence: 'high' }, suggested_learnings: [], follow_up: { needs_human: false } } },
  ],
};

beforeAll(async () => {
  const binary = findClaudeCli();
  if (binary === undefined) throw new Error('the @anthropic-ai/claude-code platform binary is not installed (npm ci)');
  root = await mkdtemp(join(tmpdir(), 'hs-claude-sessions-'));
  const scenarios = join(root, 'scenarios');
  await cp(join(repo, 'examples', 'scenarios', 'word-stats'), scenarios, { recursive: true });
  await writeFile(join(scenarios, 'cc-team-hooks.yaml'), JSON.stringify(HOOKS_SCENARIO));
  await writeFile(join(scenarios, 'cc-sandbox.yaml'), JSON.stringify(SANDBOX_SCENARIO));
  await writeFile(join(scenarios, 'cc-handoff.yaml'), JSON.stringify(HANDOFF_SCENARIO));
  await writeFile(join(scenarios, 'cc-handoff-next.yaml'), JSON.stringify(HANDOFF_NEXT_SCENARIO));
  await mkdir(outsideDir, { recursive: true });
  await writeFile(join(outsideDir, 'secret.txt'), 'OUTSIDE-SECRET');
  await mkdir(join(root, 'agents', '.headspace'), { recursive: true });
  await writeFile(join(root, 'agents', '.headspace', 'settings.json'), JSON.stringify(TEAM_HOOKS));
  ({ h, supervisor, store, orchestrator } = await startSessionsOnSimulator({
    name: 'claudecode',
    root,
    scenarios,
    // a small worst case per call: the governor lets a session with a few cents left start the CLI
    orchestratorEnv: { HS_CLAUDE_BINARY: binary, SESSION_MAX_OUTPUT_TOKENS: '256' },
  }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await h.send(importManifest, { yaml: MANIFEST });
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
  await rm(outsideDir, { recursive: true, force: true });
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

async function runSession(
  sessionId = randomUUID(),
  task = { prompt: 'Task T1: Add topWords(text, n) to src/word-stats.js: the n most frequent words, most frequent first.', situation: 'implement-task' },
  agent?: SessionStart['agent'],
) {
  const workspace = await wordStatsCheckout();
  const start: SessionStart = {
    ...(agent ? { agent } : {}),
    sessionId,
    team,
    persona: 'con',
    kind: 'task',
    model: 'sonnet',
    effort: 'standard',
    runtime: 'claude-code',
    simulated: true,
    prompt: task.prompt,
    workspace,
    situation: task.situation,
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

  it('the team’s PreToolUse hook, run by Headspace’s hook endpoint, stops the CLI’s `rm` and the denial is in the session’s events', async () => {
    const { outcome, workspace, of, end } = await runSession(randomUUID(), { prompt: 'Task H1: tidy the checkout', situation: 'cc-team-hooks' });
    expect(await readFile(join(workspace, 'README.md'), 'utf8')).not.toBe('');
    const tools = of('session.tool-called').map((e) => e.data);
    const rm = tools.find((t) => t.tool === 'Bash' && t.isError);
    // the engine's every PreToolUse outcome, the built-in guard's and the team's deny
    expect(rm?.hooks).toContainEqual({ event: 'PreToolUse', decision: 'deny', reason: 'team rule: no rm here' });
    expect(rm?.content).toContain('team rule: no rm here');
    // the next Bash call ran, its hook decisions recorded too (no opinion from any hook)
    const ls = tools.find((t) => t.tool === 'Bash' && !t.isError);
    expect(ls?.hooks.length).toBeGreaterThan(0);
    expect(ls?.hooks.map((d) => d.decision)).not.toContain('deny');
    // a denied Bash is a blocking denial: the session does not report success
    expect(outcome.exitReason).toBe('error');
    expect(end?.error).toContain('team rule: no rm here');
  }, 240_000);

  it('the CLI runs in the session’s sandbox: its Bash sees no orchestrator environment, no file outside the worktree, no NATS or PostgreSQL', async () => {
    const { outcome, workspace, of, end } = await runSession(randomUUID(), { prompt: 'Task S1: probe the sandbox', situation: 'cc-sandbox' });
    expect(end?.error, JSON.stringify(end)).toBeUndefined();
    expect(outcome.exitReason).toBe('completed');
    const [environ, outside, network, write] = of('session.tool-called').map((e) => e.data).filter((t) => t.tool === 'Bash');
    // every process's environment in there: the CLI's own and the sandbox's allow-list, none of the orchestrator's
    expect(environ.content).toContain('END');
    expect(environ.content).toContain('ANTHROPIC_BASE_URL');
    for (const name of ['DATABASE_URL', 'NATS_URL', 'HS_AGENT_HOME', 'HS_WORKSPACES_DIR', 'NATS_CREDS']) expect(environ.content).not.toContain(name);
    expect(outside).toMatchObject({ isError: true, content: expect.stringContaining('No such file or directory') });
    expect(outside.content).not.toContain('OUTSIDE-SECRET');
    expect(network.content).toContain('PROBED');
    expect(network.content).not.toMatch(/NATS-REACHED|PG-REACHED/);
    expect(network.content).toMatch(/Connection refused/);
    // the worktree is writable, as the sandbox's user
    expect(write).toMatchObject({ isError: false, content: expect.stringContaining('65534') });
    expect(await readFile(join(workspace, 'src', 'made-inside.txt'), 'utf8')).toBe('made\n');
  }, 240_000);

  it('a session whose context fills hands off like a built-in one, and a fresh CLI session seeded with the handoff carries the task on', async () => {
    const first = await runSession(randomUUID(), { prompt: 'Task C1: count the words of the corpus', situation: 'cc-handoff' });
    expect(first.end?.error, JSON.stringify(first.of('session.model-called').map((e) => e.data.content))).toBeUndefined();
    expect(first.outcome.exitReason).toBe('handoff');
    expect(first.end?.summary).toMatch(/^Handed off at (8\d|9\d)% of the context window$/);
    const handoff = first.of('session.handed-off')[0]?.data;
    expect(handoff?.contextUsedPercent).toBeGreaterThanOrEqual(80);
    expect(JSON.stringify(handoff?.handoff)).toContain('Write the totals to src/totals.txt');
    // the Bash call asked for with the full context never ran: the PreToolUse hook halted the CLI first
    expect(first.of('session.tool-called').map((e) => e.data)).toEqual([expect.objectContaining({ tool: 'Bash', isError: true })]);
    await expect(readFile(join(first.workspace, 'src', 'late.txt'))).rejects.toThrow();
    // the handoff request went to the same CLI conversation (--resume): its answer is the second model call
    expect(first.of('session.model-called').map((e) => e.data.turn)).toEqual([1, 2]);
    expect(first.of('session.reflected')).toEqual([]);

    const document = renderHandoffMarkdown(handoff!.handoff as unknown as Parameters<typeof renderHandoffMarkdown>[0]);
    const next = await runSession(randomUUID(), {
      prompt: `Task C1 (continued): count the words of the corpus\n\n## Handoff From Your Previous Session\n\n${document}`,
      situation: 'cc-handoff',
    });
    expect(next.end?.error, JSON.stringify(next.end)).toBeUndefined();
    expect(next.outcome.exitReason).toBe('completed');
    expect(await readFile(join(next.workspace, 'src', 'totals.txt'), 'utf8')).toBe('words: 42\n');
  }, 240_000);

  it('a session running a custom agent (--agent) carries the agent’s body in the CLI’s system prompt', async () => {
    const sim = (await orchestrator.get(LlmBackendProvider).get()).simulator!;
    const body = 'You are the word-stats reviewer (marker 7Q2): read the code, report, never rewrite it.';
    const { outcome, end } = await runSession(randomUUID(), undefined, { name: 'reviewer', systemPrompt: body });
    expect(end?.error, JSON.stringify(end)).toBeUndefined();
    expect(outcome.exitReason).toBe('completed');
    const system = JSON.stringify(sim.handler.lastRequest?.system ?? '');
    expect(system).toContain('## Agent: reviewer');
    expect(system).toContain('marker 7Q2');
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
