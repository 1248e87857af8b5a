import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '@headspace/llm';
import { findClaudeCli, simulatedClaudeEnv } from '@headspace/testing';
import { runClaudeCode, type RunClaudeCodeOptions } from './run';
import type { ClaudeSpawnSpec } from './spawn-args';
import type { ClaudeStreamMessage } from './stream';

/**
 * The real Claude Code CLI (the dev dependency's native binary) driven by runClaudeCode against the
 * Messages-API simulator. Each scenario is picked by the situation header and the task text.
 */

const reflection = (summary: string, files: string[]) => ({
  task_result: { status: 'completed', summary, files_changed: files },
  reflection: { what_worked: 'small steps', what_didnt: 'nothing', confidence: 'high' },
  suggested_learnings: [],
  follow_up: { needs_human: false },
});

const outside = mkdtempSync(join(tmpdir(), 'hs-cc-outside-'));

/** YAML is a superset of JSON: scenarios are written as JSON so paths need no quoting rules. */
const SCENARIOS: Record<string, unknown> = {
  default: { id: 'default', persona: '*', situation: '*', steps: [{ text: 'Default answer.' }] },
  build: {
    id: 'cc-build',
    persona: '*',
    situation: 'cc-runner',
    prompt: '^Build the greeting',
    steps: [
      { text: 'Writing the greeting.', tool_use: [{ name: 'Write', input: { file_path: 'src/owned/greet.ts', content: 'export const greet = "hi";\n' } }] },
      { tool_use: [{ name: 'Bash', input: { command: 'git add src/owned/greet.ts && git commit -qm "greet"', description: 'commit' } }] },
      { tool_use: [{ name: 'Write', input: { file_path: 'src/owned/names.ts', content: 'export const names = [];\n' } }] },
      // files_changed names a file that was never written: the run must not trust it
      { text: 'Greeting done.', structured: reflection('Added the greeting.', ['src/owned/greet.ts', 'src/owned/ghost.ts']) },
    ],
  },
  policy: {
    id: 'cc-policy',
    persona: '*',
    situation: 'cc-runner',
    prompt: '^Misbehave',
    steps: [
      { tool_use: [{ name: 'Bash', input: { command: 'chmod 777 run.sh', description: 'open up' } }] },
      { tool_use: [{ name: 'Write', input: { file_path: 'src/not-owned.ts', content: 'x' } }] },
      { tool_use: [{ name: 'Write', input: { file_path: join(outside, 'escaped.txt'), content: 'x' } }] },
      { tool_use: [{ name: 'Bash', input: { command: 'git push --force origin main', description: 'push' } }] },
      { tool_use: [{ name: 'Agent', input: { description: 'helper', prompt: 'Do it for me', subagent_type: 'general-purpose' } }] },
      { tool_use: [{ name: 'Task', input: { description: 'helper', prompt: 'Do it for me', subagent_type: 'general-purpose' } }] },
      { text: 'All done.', structured: reflection('Did everything.', ['src/not-owned.ts']) },
    ],
  },
  resume: {
    id: 'cc-resume',
    persona: '*',
    situation: 'cc-runner',
    prompt: '^-Remember',
    steps: [
      { text: 'Noted.', structured: reflection('Remembered the number.', []) },
      // the simulator sends StructuredOutput by itself once per conversation: a resumed one calls it explicitly
      ...[1, 2, 3].map(() => ({ text: 'Continuing.', tool_use: [{ name: 'StructuredOutput', input: reflection('Continued after {{turn}} earlier turns.', []) }] })),
    ],
  },
  delegate: {
    id: 'cc-delegate',
    persona: '*',
    situation: 'cc-runner',
    prompt: '^Delegate',
    steps: [
      { tool_use: [{ name: 'Agent', input: { description: 'slow helper', prompt: 'Subtask: wait, then report', subagent_type: 'general-purpose', run_in_background: true } }] },
      { text: 'Main work done.', structured: reflection('Main task finished.', []) },
    ],
    exhausted: { text: 'The helper finished too.' },
  },
  subtask: {
    id: 'cc-subtask',
    persona: '*',
    situation: 'cc-runner',
    prompt: '^Subtask',
    steps: [{ tool_use: [{ name: 'Bash', input: { command: 'sleep 2', description: 'wait' } }] }, { text: 'Helper report: waited.' }],
  },
};

let sim: RunningSimulator;
let binary: string;
let home: string;
const temps: string[] = [outside];

beforeAll(async () => {
  const found = findClaudeCli();
  if (found === undefined) throw new Error('the @anthropic-ai/claude-code platform binary is not installed (npm ci)');
  binary = found;
  const dir = mkdtempSync(join(tmpdir(), 'hs-cc-scen-'));
  temps.push(dir);
  for (const [name, s] of Object.entries(SCENARIOS)) writeFileSync(join(dir, `${name}.yaml`), JSON.stringify(s));
  sim = await startSimulator({ port: 0, scenariosDir: dir, announce: false, latency: undefined });
  home = mkdtempSync(join(tmpdir(), 'hs-cc-home-'));
  temps.push(home);
  // the machine's user settings must not reach a session: were they read, every Write and Bash would be denied
  mkdirSync(join(home, '.claude'));
  writeFileSync(join(home, '.claude/settings.json'), JSON.stringify({ permissions: { deny: ['Write', 'Bash'] } }));
});
afterAll(async () => {
  await sim?.close();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function checkout(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'hs-cc-co-'));
  temps.push(cwd);
  const git = (...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });
  git('init', '-q');
  mkdirSync(join(cwd, 'src/owned'), { recursive: true });
  writeFileSync(join(cwd, 'run.sh'), 'echo hi\n', { mode: 0o644 });
  git('add', '.');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
  return cwd;
}

const baseSpec = (task: string, extra: Partial<ClaudeSpawnSpec> = {}): ClaudeSpawnSpec => ({
  name: 'builder',
  role: 'Builds things',
  owns: ['src/owned/**'],
  learnings: '',
  tools: ['Read', 'Write', 'Edit', 'Bash(git:*)'],
  budgetUsd: 5,
  task,
  ...extra,
});

function run(cwd: string, spec: ClaudeSpawnSpec, extra: Partial<RunClaudeCodeOptions> = {}) {
  return runClaudeCode({
    spec,
    cwd,
    binary,
    inheritEnv: false,
    timeoutMs: 120_000,
    env: {
      ...simulatedClaudeEnv(home, sim.url, 'cc-runner'),
      GIT_AUTHOR_NAME: 'agent',
      GIT_AUTHOR_EMAIL: 'agent@example.com',
      GIT_COMMITTER_NAME: 'agent',
      GIT_COMMITTER_EMAIL: 'agent@example.com',
    },
    ...extra,
  });
}

describe('runClaudeCode with the real Claude Code CLI against the simulator', () => {
  it('completes a task with its reflection, files from git (committed and not), tools, summed usage and a simulated cost', async () => {
    const cwd = checkout();
    const seen: ClaudeStreamMessage[] = [];
    const spec = baseSpec('Build the greeting module', { model: 'claude-sonnet-4-5', policy: { checkoutRoot: cwd, ownedPaths: ['src/owned/**'] } });
    const out = await run(cwd, spec, { onMessage: (m) => seen.push(m) });
    expect(out.result.error, out.stderr).toBeUndefined();
    expect(out.result).toMatchObject({ exitReason: 'completed', summary: 'Added the greeting.' });
    expect(out.result.filesModified).toEqual(['src/owned/greet.ts', 'src/owned/names.ts']);
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd }).toString().trim()).toBe('greet');
    expect(out.result.toolsUsed).toEqual(['Write', 'Bash']);
    expect(out.denials).toEqual([]);
    expect(seen).toEqual(out.messages);
    const init = seen.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init?.model).toBe('claude-sonnet-4-5');
    expect(out.result.sessionId).toBe(init?.session_id);
    const models = Object.values(out.raw?.modelUsage ?? {});
    expect(models.length).toBeGreaterThan(0);
    expect(out.result.tokensConsumed.output).toBe(models.reduce((n, m) => n + m.outputTokens, 0));
    expect(out.result.tokensConsumed.cacheWrite + out.result.tokensConsumed.cacheRead).toBeGreaterThan(0);
    expect(out.result.costUsd).toBeGreaterThan(0);
    expect(out.simulated).toBe(true);
  }, 150_000);

  it('stops chmod 777, writes outside the owned paths and the checkout, a force push and the Agent/Task tools, recording each denial', async () => {
    const cwd = checkout();
    const spec = baseSpec('Misbehave in every way', { tools: ['Read', 'Write', 'Edit', 'Bash'], effort: 'low', maxTurns: 20, policy: { checkoutRoot: cwd, ownedPaths: ['src/owned/**'] } });
    const out = await run(cwd, spec);
    const denied = out.denials.map((d) => `${d.toolName} ${String(d.toolInput?.command ?? d.toolInput?.file_path ?? '')}`.trim());
    expect(denied).toEqual([
      'Bash chmod 777 run.sh',
      `Write ${join(cwd, 'src/not-owned.ts')}`,
      `Write ${join(outside, 'escaped.txt')}`,
      'Bash git push --force origin main',
      'Agent',
      'Task',
    ]);
    expect(out.denials.map((d) => d.source)).toEqual(['hook', 'hook', 'hook', 'hook', 'unavailable', 'unavailable']);
    expect(out.raw?.permission_denials?.map((d) => d.tool_name)).toEqual(['Bash', 'Write', 'Write', 'Bash']);
    expect(statSync(join(cwd, 'run.sh')).mode & 0o777).toBe(0o644);
    expect(existsSync(join(cwd, 'src/not-owned.ts'))).toBe(false);
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    expect(out.result).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.TOOLS_DENIED' }, filesModified: [], toolsUsed: [] });
  }, 150_000);

  it('resumes a session: the second run continues the first conversation under the same id (a task may start with -)', async () => {
    const cwd = checkout();
    const first = await run(cwd, baseSpec('-Remember the number 7'));
    expect(first.result).toMatchObject({ exitReason: 'completed', summary: 'Remembered the number.' });
    const sessionId = first.result.sessionId;
    expect(sessionId).toBeDefined();
    const second = await run(cwd, baseSpec('What was the number?', { resume: sessionId }));
    expect(second.argv).toContain('--resume');
    expect(second.result.sessionId).toBe(sessionId);
    // step 1 of the script plays only when the simulator sees the first run's assistant turn
    expect(second.result).toMatchObject({ exitReason: 'completed', summary: expect.stringMatching(/^Continued after [1-9]\d* earlier turns\.$/) });
  }, 150_000);

  it('keeps the main result when a background subagent finishes later and prints a second one, counting its tokens', async () => {
    const cwd = checkout();
    const spec = baseSpec('Delegate the slow part', { tools: ['Read', 'Agent', 'Bash(sleep:*)'], policy: { checkoutRoot: cwd, ownedPaths: ['src/owned/**'] } });
    const out = await run(cwd, spec);
    const results = out.messages.filter((m) => m.type === 'result');
    expect(results.length).toBe(2);
    expect(results[1].origin).toBeDefined();
    expect(out.result).toMatchObject({ exitReason: 'completed', summary: 'Main task finished.' });
    expect(out.raw?.origin).toBeUndefined();
    expect(out.raw?.structured_output).toBeDefined();
    expect(out.result.toolsUsed).toEqual(expect.arrayContaining(['Agent', 'Bash']));
    // the last result's modelUsage is cumulative (subagent included); `usage` covers one stretch only
    const last = results.at(-1) as { modelUsage?: Record<string, { outputTokens: number }> };
    const total = Object.values(last.modelUsage ?? {}).reduce((n, m) => n + m.outputTokens, 0);
    expect(out.result.tokensConsumed.output).toBe(total);
    expect(out.result.tokensConsumed.output).toBeGreaterThan(out.raw?.usage?.output_tokens ?? 0);
  }, 150_000);
});
