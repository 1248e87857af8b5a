import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHookEngine, runClaudeCode, toolCallPolicyOf, type ClaudeHookEndpoint, type ClaudePolicy, type ClaudeSpawnSpec } from '@headspace/agent-runtime';
import { startSimulator, type RunningSimulator } from '@headspace/llm';
import { findClaudeCli, simulatedClaudeEnv } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHookEndpointService, HOOK_UNAUTHORIZED, type OpenHookEndpoint } from './claude-hook-endpoint.service';
import { recordingProxy, type RecordingProxy } from './testing/recording-proxy';

/**
 * Headspace's hook engine behind the orchestrator's hook endpoint, called by the real Claude Code
 * CLI's HTTP hooks (no bridge process), against the simulator. The team's hooks are a settings
 * file in the agent home, as a built-in session's are.
 */

const reflection = (summary: string) => ({
  task_result: { status: 'completed', summary, files_changed: [] },
  reflection: { what_worked: 'hooks', what_didnt: 'nothing', confidence: 'high' },
  suggested_learnings: [],
  follow_up: { needs_human: false },
});

const SCENARIOS: Record<string, unknown> = {
  default: { id: 'default', persona: '*', situation: '*', steps: [{ text: 'Default answer.' }] },
  hooks: {
    id: 'cc-hooks',
    persona: '*',
    situation: 'cc-hooks',
    prompt: '^Tidy up',
    steps: [
      { tool_use: [{ name: 'Bash', input: { command: 'rm notes.txt', description: 'remove the notes' } }] },
      { tool_use: [{ name: 'Bash', input: { command: 'echo listed', description: 'list' } }] },
      // ends its turn without the reflection: the Stop hook fires here and blocks once
      { text: 'Tidied.', stop_reason: 'end_turn' },
      { text: 'Checked again after the Stop hook.', structured: reflection('Tidied up and checked.') },
    ],
  },
  closed: {
    id: 'cc-closed',
    persona: '*',
    situation: 'cc-hooks',
    prompt: '^Write the note',
    steps: [
      { tool_use: [{ name: 'Write', input: { file_path: 'note.txt', content: 'hello\n' } }] },
      { text: 'Tried.', structured: reflection('Tried to write the note.') },
    ],
  },
};

/** The team's hooks: rm denied, a PostToolUse context on Bash, a Stop hook that blocks once. */
const TEAM_SETTINGS = {
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `grep -q '"command":"rm ' && echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"team rule: no rm in this repo"}}' || true` }] }],
    PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"TEAM-CONTEXT-7f3a: the listing is stale"}}'` }] }],
    Stop: [{ hooks: [{ type: 'command', command: `grep -q '"stop_hook_active":false' && echo '{"decision":"block","reason":"TEAM-STOP-91c: check once more before stopping"}' || true` }] }],
  },
};

let sim: RunningSimulator;
let proxy: RecordingProxy;
let binary: string;
let agentHome: string;
let cliHome: string;
const endpoint = new ClaudeHookEndpointService();
const temps: string[] = [];

beforeAll(async () => {
  const found = findClaudeCli();
  if (found === undefined) throw new Error('the @anthropic-ai/claude-code platform binary is not installed (npm ci)');
  binary = found;
  const dir = mkdtempSync(join(tmpdir(), 'hs-hooks-scen-'));
  agentHome = mkdtempSync(join(tmpdir(), 'hs-hooks-agent-'));
  cliHome = mkdtempSync(join(tmpdir(), 'hs-hooks-cli-'));
  temps.push(dir, agentHome, cliHome);
  for (const [name, s] of Object.entries(SCENARIOS)) writeFileSync(join(dir, `${name}.yaml`), JSON.stringify(s));
  mkdirSync(join(agentHome, '.headspace'));
  writeFileSync(join(agentHome, '.headspace', 'settings.json'), JSON.stringify(TEAM_SETTINGS));
  sim = await startSimulator({ port: 0, scenariosDir: dir, announce: false, latency: undefined });
  proxy = await recordingProxy(sim.url);
});

afterAll(async () => {
  await endpoint.onApplicationShutdown();
  await proxy?.close();
  await sim?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function checkout(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'hs-hooks-co-'));
  temps.push(cwd);
  writeFileSync(join(cwd, 'notes.txt'), 'keep me\n');
  execFileSync('git', ['init', '-q'], { cwd });
  return cwd;
}

async function openFor(cwd: string): Promise<{ hooks: OpenHookEndpoint; policy: ClaudePolicy; tools: string[] }> {
  const engine = await createHookEngine({ locations: { homeDir: agentHome } });
  const policy: ClaudePolicy = { checkoutRoot: cwd, ownedPaths: [] };
  const tools = ['Read', 'Write', 'Bash'];
  const hooks = await endpoint.open({ engine, session: { sessionId: 'hs-session-1', cwd }, policy: toolCallPolicyOf(policy, tools) });
  return { hooks, policy, tools };
}

function runCli(cwd: string, task: string, policy: ClaudePolicy, tools: string[], hookEndpoint: ClaudeHookEndpoint) {
  const spec: ClaudeSpawnSpec = { name: 'builder', role: 'Builds', owns: [], learnings: '', tools, budgetUsd: 5, task, model: 'claude-sonnet-4-5', policy };
  return runClaudeCode({
    spec,
    cwd,
    binary,
    inheritEnv: false,
    timeoutMs: 120_000,
    trackGitChanges: false,
    hookEndpoint,
    env: simulatedClaudeEnv(cliHome, proxy.url, 'cc-hooks'),
  });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the hook endpoint: Headspace’s hook engine for the real Claude Code CLI', () => {
  it('a team PreToolUse hook denies rm, a PostToolUse hook’s context reaches the model, a Stop hook blocking once makes the CLI carry on', async () => {
    const cwd = checkout();
    const { hooks, policy, tools } = await openFor(cwd);
    const sent = proxy.bodies.length;
    const out = await runCli(cwd, 'Tidy up the checkout', policy, tools, hooks);
    hooks.close();
    const requests = proxy.bodies.slice(sent).join('\n');

    // a blocking denial: an honest result is not `completed`
    expect(out.result.error, out.stderr).toMatchObject({ code: 'CLAUDE_CODE.TOOLS_DENIED' });
    // denied: the file is still there, the denial is the run's and the call's
    expect(execFileSync('cat', ['notes.txt'], { cwd }).toString()).toBe('keep me\n');
    expect(out.denials).toEqual([expect.objectContaining({ source: 'hook', toolName: 'Bash', toolInput: expect.objectContaining({ command: 'rm notes.txt' }), reason: 'team rule: no rm in this repo', blocking: true })]);
    expect(hooks.hooksOf(out.denials[0].toolUseId!)).toContainEqual({ event: 'PreToolUse', decision: 'deny', reason: 'team rule: no rm in this repo' });
    expect(requests).toContain('team rule: no rm in this repo');
    // PostToolUse: the context is in a later request to the model
    expect(requests).toContain('TEAM-CONTEXT-7f3a: the listing is stale');
    // Stop blocked once: its reason went to the model and the CLI went on to the next step
    expect(requests).toContain('TEAM-STOP-91c: check once more before stopping');
    expect((out.result.reflection as { task_result?: { summary?: string } } | undefined)?.task_result?.summary).toBe('Tidied up and checked.');
  }, 180_000);

  it('refuses a call with a wrong token or for an unknown session (401), running no hook', async () => {
    const { hooks } = await openFor(checkout());
    const input = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm notes.txt' }, tool_use_id: 'toolu_1', cwd: '/' };
    const post = (url: string, token: string) => fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
    const wrong = await post(hooks.url, `${hooks.token}x`);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: HOOK_UNAUTHORIZED } });
    expect((await post(hooks.url.replace(/[0-9a-f]{12}$/, '000000000000'), hooks.token)).status).toBe(401);
    expect(hooks.denials()).toEqual([]);
    const right = await post(hooks.url, hooks.token);
    expect(await right.json()).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'team rule: no rm in this repo' } });
    hooks.close();
    expect((await post(hooks.url, hooks.token)).status).toBe(401);
  });

  it('fails closed: with the endpoint down or a wrong token the CLI runs nothing; a failing engine denies the tool call', async () => {
    for (const endpointOf of [
      async (h: OpenHookEndpoint) => ({ ...h, url: `http://127.0.0.1:${await closedPort()}/hooks/x` }),
      async (h: OpenHookEndpoint) => ({ ...h, token: 'not-the-token' }),
    ]) {
      const cwd = checkout();
      const { hooks, policy, tools } = await openFor(cwd);
      const out = await runCli(cwd, 'Write the note', policy, tools, await endpointOf(hooks));
      hooks.close();
      expect(existsSync(join(cwd, 'note.txt'))).toBe(false);
      // even the prompt is refused (UserPromptSubmit blocks on a failed hook call): no model call, no tool
      expect(JSON.stringify(out.messages)).toMatch(/UserPromptSubmit operation blocked by hook[^"]*onFailure is \\"block\\"/);
      expect(out.messages.filter((m) => m.type === 'assistant')).toEqual([]);
    }

    const cwd = checkout();
    const { hooks, policy, tools } = await openFor(cwd);
    const broken = await createHookEngine();
    broken.run = (async (event: string) => {
      if (event === 'PreToolUse') throw new Error('engine down');
      return { event, decision: 'none', blocked: false, additionalContext: [], feedback: [], outcomes: [] };
    }) as typeof broken.run;
    const failing = await endpoint.open({ engine: broken, session: { sessionId: 'hs-session-2', cwd }, policy: toolCallPolicyOf(policy, tools) });
    const out = await runCli(cwd, 'Write the note', policy, tools, failing);
    failing.close();
    hooks.close();
    expect(existsSync(join(cwd, 'note.txt'))).toBe(false);
    // every tool call is refused, the reflection's too
    expect(out.denials.map((d) => [d.source, d.toolName, d.reason])).toEqual([
      ['hook', 'Write', 'Headspace hook engine failed (engine down): tool call denied'],
      ['hook', 'StructuredOutput', 'Headspace hook engine failed (engine down): tool call denied'],
    ]);
  }, 240_000);
});
