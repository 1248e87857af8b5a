import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reflectionJsonSchema } from '@headspace/contracts';
import { buildClaudeArgs, type ClaudeSpawnSpec } from './spawn-args';
import { createSandbox } from '../sandbox/create-sandbox';
import { sandboxAvailability } from '../sandbox/sandbox-availability';
import { runClaudeCode } from './run';
import { claudeJsonResultSchema, toAgentResult } from './result';

/**
 * A fake `claude`: records argv, cwd, env and stdin, then behaves per FAKE_MODE. Its shebang is
 * this Node binary, so it runs wherever the tests run.
 */
const FAKE = `#!${process.execPath}
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const mode = process.env.FAKE_MODE;
const record = (extra) => fs.writeFileSync(process.env.FAKE_RECORD, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), sessionId: process.env.HEADSPACE_SESSION_ID, secret: process.env.HS_TEST_ORCHESTRATOR_SECRET, pid: process.pid, interfaces: Object.keys(require('node:os').networkInterfaces()), ...extra }));
let stdin = '';
process.stdin.on('data', (d) => { stdin += d; });
process.stdin.on('end', () => {
  if (mode === 'hang') {
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    process.on('SIGTERM', () => {}); // ignore the polite signal: only SIGKILL ends it
    record({ stdin, grandchild: grandchild.pid });
    setInterval(() => {}, 1000);
    return;
  }
  record({ stdin });
  if (mode === 'fail') {
    process.stderr.write('Error: Invalid API key · Please run /login\\n');
    process.exit(1);
  }
  if (mode === 'write') {
    fs.mkdirSync('src', { recursive: true });
    fs.writeFileSync('src/new-file.ts', 'export const x = 1;\\n');
    fs.appendFileSync('README.md', 'more\\n');
  }
  if (mode === 'garbage') {
    process.stdout.write('this is not json');
    process.exit(0);
  }
  const argv = process.argv.slice(2);
  const flag = (f) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : undefined);
  if (flag('--settings')) {
    // play the CLI's part: run the PreToolUse hook of the settings on a write outside the owned paths
    const settings = JSON.parse(fs.readFileSync(flag('--settings'), 'utf8'));
    const hook = settings.hooks.PreToolUse[0].hooks[0].command;
    const input = JSON.stringify({ hook_event_name: 'PreToolUse', cwd: process.cwd(), tool_name: 'Write', tool_use_id: 'toolu_hook', tool_input: { file_path: 'elsewhere/x.ts', content: 'x' } });
    const hookOut = require('node:child_process').spawnSync('/bin/sh', ['-c', hook], { input, encoding: 'utf8' });
    fs.writeFileSync(process.env.FAKE_RECORD + '.hook', JSON.stringify({ stdout: hookOut.stdout, stderr: hookOut.stderr, status: hookOut.status }));
  }
  const sid = flag('--session-id') ?? flag('--resume');
  const line = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
  if (mode === 'commit') {
    const git = (...a) => require('node:child_process').execFileSync('git', a, { stdio: 'pipe' });
    fs.writeFileSync('committed.ts', 'export const c = 1;\\n');
    fs.writeFileSync('uncommitted.ts', 'export const u = 1;\\n');
    git('add', 'committed.ts');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'agent work');
  }
  line({ type: 'system', subtype: 'init', session_id: sid, tools: ['Read', 'Write', 'Bash'], model: 'claude-sonnet-4-5' });
  line({ type: 'assistant', session_id: sid, parent_tool_use_id: null, message: { id: 'msg_1', content: [
    { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: 'docs/claims.md' } },
    ...(mode === 'denied' ? [{ type: 'tool_use', id: 'toolu_write', name: 'Write', input: { file_path: 'src/claim.ts', content: 'x' } }] : []),
  ] } });
  const reflection = {
    task_result: { status: 'completed', summary: 'Implemented the claim lease.', files_changed: ['src/claim.ts', 'src/claim.spec.ts'] },
    reflection: { what_worked: 'tests first', what_didnt: 'nothing', confidence: 'high' },
    suggested_learnings: [],
    follow_up: { needs_human: false },
  };
  line({ type: 'assistant', session_id: sid, parent_tool_use_id: null, message: { id: 'msg_2', content: [{ type: 'tool_use', id: 'toolu_so', name: 'StructuredOutput', input: reflection }] } });
  const noReflection = mode === 'no_reflection';
  const result = {
    type: 'result',
    subtype: mode === 'max_turns' ? 'error_max_turns' : 'success',
    is_error: mode === 'max_turns',
    duration_ms: 1234,
    num_turns: 7,
    result: mode === 'text_only' ? 'Done.\\n' + JSON.stringify(reflection) : 'Done.',
    session_id: sid,
    total_cost_usd: 0.1234,
    usage: { input_tokens: 1200, output_tokens: 340, cache_read_input_tokens: 5000, cache_creation_input_tokens: 800 },
    ...(mode === 'text_only' || noReflection ? {} : { structured_output: reflection }),
    ...(mode === 'denied' ? { permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_write', tool_input: { file_path: 'src/claim.ts', content: 'x' } }] } : {}),
    ...(mode === 'usage' || mode === 'background' ? { usage: { input_tokens: 10, output_tokens: 5 }, modelUsage: {
      'claude-sonnet-4-5': { inputTokens: 1000, outputTokens: 300, cacheReadInputTokens: 4000, cacheCreationInputTokens: 700, costUSD: 0.1 },
      'claude-haiku-4-5': { inputTokens: 200, outputTokens: 40, cacheReadInputTokens: 1000, cacheCreationInputTokens: 100, costUSD: 0.0234 },
    } } : {}),
  };
  line(result);
  if (mode === 'background') {
    line({ type: 'system', subtype: 'task_notification', session_id: sid, status: 'completed' });
    line({ ...result, result: 'The background helper finished.', structured_output: undefined, num_turns: 2, total_cost_usd: 0.2, origin: { kind: 'task-notification' },
      modelUsage: { 'claude-sonnet-4-5': { inputTokens: 1500, outputTokens: 400, cacheReadInputTokens: 6000, cacheCreationInputTokens: 900, costUSD: 0.17 }, 'claude-haiku-4-5': { inputTokens: 200, outputTokens: 40, cacheReadInputTokens: 1000, cacheCreationInputTokens: 100, costUSD: 0.03 } } });
  }
});
`;

const spec: ClaudeSpawnSpec = {
  name: 'backend',
  role: 'Server logic, data models, business rules',
  owns: ['src/domain/**', 'src/infra/**', 'tests/**'],
  learnings: '# Learnings: backend\n\n## Gotchas\n- TrustService requires bootstrap before first call (added: 2026-02-13)\n',
  model: 'sonnet',
  tools: ['Read', 'Write', 'Edit', 'Grep', 'Glob', 'Bash(git:*)', 'Bash(uv run pytest:*)'],
  permissionMode: 'dontAsk',
  budgetUsd: 0.5,
  task: 'Implement bead hs-42: claim leases. Context: see docs/claims.md',
};

const EXPECTED_APPEND = `# Team Member: backend
Role: Server logic, data models, business rules
Owns: src/domain/**, src/infra/**, tests/**

## Your Accumulated Learnings
# Learnings: backend

## Gotchas
- TrustService requires bootstrap before first call (added: 2026-02-13)

## Reflection Protocol
After completing your task, return structured JSON matching the reflection schema.
Include honest self-assessment in the reflection section.
Suggest learnings that should be persisted for future spawns.`;

const EXPECTED_ARGV = [
  '-p',
  '--append-system-prompt',
  EXPECTED_APPEND,
  '--model',
  'sonnet',
  '--tools',
  'Read,Write,Edit,Grep,Glob,Bash',
  '--allowedTools',
  'Read,Write,Edit,Grep,Glob,Bash(git:*),Bash(uv run pytest:*)',
  '--permission-mode',
  'dontAsk',
  '--max-budget-usd',
  '0.50',
  '--output-format',
  'stream-json',
  '--verbose',
  '--json-schema',
  JSON.stringify(reflectionJsonSchema),
  '--setting-sources',
  '',
  '--',
  'Implement bead hs-42: claim leases. Context: see docs/claims.md',
];

let dir: string;
let fake: string;
let recordPath: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hs-claude-'));
  fake = join(dir, 'claude');
  recordPath = join(dir, 'record.json');
  await writeFile(fake, FAKE);
  await chmod(fake, 0o755);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (mode: string, extra: Partial<Parameters<typeof runClaudeCode>[0]> = {}) =>
  runClaudeCode({ spec, cwd: dir, binary: fake, env: { FAKE_MODE: mode, FAKE_RECORD: recordPath, HEADSPACE_SESSION_ID: 's-1' }, ...extra });

describe('claude -p spawn protocol', () => {
  it('builds the argv of the seed command template', () => {
    expect(buildClaudeArgs(spec)).toEqual(EXPECTED_ARGV);
    expect(JSON.parse(EXPECTED_ARGV[17]).required).toEqual(['task_result', 'reflection', 'suggested_learnings', 'follow_up']);
  });

  it('ends the options with -- before the task, passes the session flags and, with a policy, the settings instead of --allowedTools', () => {
    const policy = { checkoutRoot: '/work/co', ownedPaths: ['src/**'] };
    const args = buildClaudeArgs({ ...spec, task: '-v is not an option here', policy, effort: 'high', maxTurns: 12, resume: 'abc', sessionId: 'ignored', settingSources: 'project' }, { settingsPath: '/tmp/s.json' });
    expect(args.slice(-2)).toEqual(['--', '-v is not an option here']);
    expect(args).not.toContain('--allowedTools');
    expect(args).not.toContain('--session-id');
    expect(args).not.toContain('--no-session-persistence');
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    expect([after('--settings'), after('--effort'), after('--max-turns'), after('--resume'), after('--setting-sources')]).toEqual(['/tmp/s.json', 'high', '12', 'abc', 'project']);
    expect(buildClaudeArgs({ ...spec, sessionId: 'f00' })).toContain('f00');
  });

  it('applies the manifest defaults (sonnet, dontAsk, 0.50)', () => {
    const args = buildClaudeArgs({ ...spec, model: undefined, permissionMode: undefined, budgetUsd: undefined });
    expect([args[4], args[10], args[12]]).toEqual(['sonnet', 'dontAsk', '0.50']);
  });

  it('spawns the binary with that argv plus a fresh session id, in the cwd, with env and closed stdin, and maps the stream result', async () => {
    const seen: string[] = [];
    const out = await run('ok', { onMessage: (m) => seen.push(m.type) });
    const rec = JSON.parse(await readFile(recordPath, 'utf8'));
    const at = rec.argv.indexOf('--session-id');
    const sessionId = rec.argv[at + 1];
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...rec.argv.slice(0, at), ...rec.argv.slice(at + 2)]).toEqual(EXPECTED_ARGV);
    expect(seen).toEqual(['system', 'assistant', 'assistant', 'result']);
    expect(out.messages.map((m) => m.type)).toEqual(seen);
    expect(rec.cwd).toBe(dir);
    expect(rec.sessionId).toBe('s-1');
    expect(rec.stdin).toBe('');
    expect(out.exitCode).toBe(0);
    expect(out.result).toEqual({
      summary: 'Implemented the claim lease.',
      turnsUsed: 7,
      tokensConsumed: { input: 1200, output: 340, cacheRead: 5000, cacheWrite: 800 },
      toolsUsed: ['Read'],
      filesModified: ['src/claim.ts', 'src/claim.spec.ts'],
      exitReason: 'completed',
      costUsd: 0.1234,
      sessionId,
      reflection: expect.objectContaining({ task_result: expect.objectContaining({ status: 'completed' }) }),
    });
  });

  it('keeps the orchestrator environment out of the child when inheritEnv is false', async () => {
    process.env.HS_TEST_ORCHESTRATOR_SECRET = 'db-password';
    try {
      await run('ok');
      expect(JSON.parse(await readFile(recordPath, 'utf8')).secret).toBe('db-password');
      await run('ok', { inheritEnv: false });
      const rec = JSON.parse(await readFile(recordPath, 'utf8'));
      expect(rec.secret).toBeUndefined();
      expect(rec.sessionId).toBe('s-1');
    } finally {
      delete process.env.HS_TEST_ORCHESTRATOR_SECRET;
    }
  });

  it('without the team network, forwards a loopback model API alone, and gives the CLI the host network (with a warning) for a model API elsewhere', async () => {
    const available = await sandboxAvailability();
    if (!available.available) throw new Error(`bubblewrap is required: ${available.reason}`);
    const sandbox = await createSandbox(available, { workspace: dir, workspaceAccess: 'rw', network: false });
    const interfaces = async (baseUrl: string) => {
      const warnings: string[] = [];
      const out = await runClaudeCode({ spec: { ...spec, policy: { checkoutRoot: dir, ownedPaths: ['src/**'] } }, cwd: dir, binary: fake, sandbox, onWarning: (w) => warnings.push(w), env: { FAKE_MODE: 'ok', FAKE_RECORD: recordPath, ANTHROPIC_BASE_URL: baseUrl } });
      if (!existsSync(recordPath)) throw new Error(`the fake CLI did not run: ${out.stderr} ${JSON.stringify(out.result)}`);
      return { interfaces: (JSON.parse(await readFile(recordPath, 'utf8')) as { interfaces: string[] }).interfaces, warnings };
    };
    const local = await interfaces('http://127.0.0.1:39999');
    expect(local).toEqual({ interfaces: ['lo'], warnings: [] });
    const remote = await interfaces('https://api.example.test');
    expect(remote.interfaces.length).toBeGreaterThan(1);
    expect(remote.warnings).toEqual([expect.stringContaining('https://api.example.test is not on this host')]);
  });

  it('runs the CLI inside a sandbox when given one: own PID namespace, only the policy env plus what was handed to it, the hook bridge working inside', async () => {
    const available = await sandboxAvailability();
    if (!available.available) throw new Error(`bubblewrap is required: ${available.reason}`);
    process.env.HS_TEST_ORCHESTRATOR_SECRET = 'db-password';
    try {
      const sandbox = await createSandbox(available, { workspace: dir, workspaceAccess: 'rw', network: false });
      const out = await run('write', { sandbox, spec: { ...spec, policy: { checkoutRoot: dir, ownedPaths: ['src/**'] } } });
      const hook = JSON.parse(await readFile(`${recordPath}.hook`, 'utf8'));
      expect(JSON.parse(hook.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('outside the owned paths') });
      expect(out.denials).toEqual([expect.objectContaining({ source: 'hook', toolName: 'Write', toolUseId: 'toolu_hook' })]);
      // the write the fake's hook call tried was denied, so the run is not completed
      expect(out.result).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.TOOLS_DENIED' } });
      const rec = JSON.parse(await readFile(recordPath, 'utf8'));
      expect(rec).toMatchObject({ sessionId: 's-1', cwd: await realpath(dir) });
      expect(rec.secret).toBeUndefined();
      expect(rec.pid).toBeLessThan(10);
      expect(existsSync(join(dir, 'src', 'new-file.ts'))).toBe(true);
    } finally {
      delete process.env.HS_TEST_ORCHESTRATOR_SECRET;
    }
  });

  it('reads the reflection from the result text when there is no structured output', async () => {
    const out = await run('text_only');
    expect(out.result.exitReason).toBe('completed');
    expect(out.result.filesModified).toEqual(['src/claim.ts', 'src/claim.spec.ts']);
  });

  it('maps error_max_turns to max_turns', async () => {
    const out = await run('max_turns');
    expect(out.result.exitReason).toBe('max_turns');
    expect(out.result.turnsUsed).toBe(7);
  });

  it('maps a non-zero exit without JSON to an error carrying stderr', async () => {
    const out = await run('fail');
    expect(out.exitCode).toBe(1);
    expect(out.result.exitReason).toBe('error');
    expect(out.result.error?.code).toBe('CLAUDE_CODE.FAILED');
    expect(out.result.error?.message).toContain('Invalid API key');
  });

  it('maps unreadable output to OUTPUT_INVALID', async () => {
    const out = await run('garbage');
    expect(out.result).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.OUTPUT_INVALID' } });
  });

  const gitRepo = async () => {
    const repo = join(dir, 'repo');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
    await mkdir(repo);
    git('init', '-q');
    await writeFile(join(repo, 'README.md'), 'hello\n');
    await writeFile(join(repo, 'untouched-dirty.txt'), 'dirty before the run\n');
    git('add', 'README.md');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
    return repo;
  };

  it('takes filesModified from git in a checkout, not from the reflection', async () => {
    const out = await run('write', { cwd: await gitRepo() });
    expect([...out.result.filesModified].sort()).toEqual(['README.md', 'src/new-file.ts']);
  });

  it('counts the files of commits made during the run beside uncommitted ones', async () => {
    const out = await run('commit', { cwd: await gitRepo() });
    expect([...out.result.filesModified].sort()).toEqual(['committed.ts', 'uncommitted.ts']);
  });

  it('reports a run with a denied write as TOOLS_DENIED, with the denial, and never counts the denied file', async () => {
    const out = await run('denied');
    expect(out.result).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.TOOLS_DENIED' }, toolsUsed: ['Read'], filesModified: ['src/claim.spec.ts'] });
    expect(out.denials).toEqual([{ source: 'permissions', toolName: 'Write', toolUseId: 'toolu_write', toolInput: { file_path: 'src/claim.ts', content: 'x' }, blocking: true }]);
  });

  it('reports a success without a reflection as NO_REFLECTION, not completed', async () => {
    const out = await run('no_reflection');
    expect(out.result).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.NO_REFLECTION' } });
  });

  it('sums tokens over modelUsage (subagent models included) instead of the last turn\'s usage', async () => {
    const out = await run('usage');
    expect(out.result.tokensConsumed).toEqual({ input: 1200, output: 340, cacheRead: 5000, cacheWrite: 800 });
  });

  it('keeps the main result when a finished background subagent prints a second one, with the cumulative cost and tokens', async () => {
    const out = await run('background');
    expect(out.raw?.result).toBe('Done.');
    expect(out.result).toMatchObject({ exitReason: 'completed', summary: 'Implemented the claim lease.', costUsd: 0.2, turnsUsed: 9 });
    expect(out.result.tokensConsumed).toEqual({ input: 1700, output: 440, cacheRead: 7000, cacheWrite: 1000 });
  });

  it('maps a missing binary to SPAWN_FAILED', async () => {
    const out = await runClaudeCode({ spec, cwd: dir, binary: join(dir, 'no-such-claude') });
    expect(out.result).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.SPAWN_FAILED' } });
  });

  it('kills a hanging CLI and its children on timeout (SIGTERM, then SIGKILL)', async () => {
    const out = await run('hang', { timeoutMs: 500, killGraceMs: 200 });
    expect(out.result).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.TIMEOUT' } });
    expect(out.signal).toBe('SIGKILL');
    const { grandchild } = JSON.parse(await readFile(recordPath, 'utf8'));
    const alive = (pid: number) => {
      const status = `/proc/${pid}/status`;
      if (!existsSync(status)) return false;
      return !/^State:\s+Z/m.test(readFileSync(status, 'utf8'));
    };
    await expect.poll(() => alive(grandchild), { timeout: 10_000, interval: 50 }).toBe(false);
  });

  it('maps an abort to cancelled', async () => {
    const controller = new AbortController();
    const pending = run('hang', { killGraceMs: 100, signal: controller.signal });
    await expect.poll(() => existsSync(recordPath), { timeout: 10_000, interval: 20 }).toBe(true);
    controller.abort();
    const out = await pending;
    expect(out.result.exitReason).toBe('cancelled');
  });
});

describe('mapping the CLI result subtype', () => {
  const base = { type: 'result' as const, is_error: true, num_turns: 2, result: 'stopped' };
  it('maps the budget stop to budget_stopped and an unknown subtype to error', () => {
    expect(toAgentResult(claudeJsonResultSchema.parse({ ...base, subtype: 'error_max_budget_usd' })).exitReason).toBe('budget_stopped');
    const odd = toAgentResult(claudeJsonResultSchema.parse({ ...base, subtype: 'error_something_new' }));
    expect(odd).toMatchObject({ exitReason: 'error', error: { code: 'CLAUDE_CODE.FAILED' }, summary: 'stopped', turnsUsed: 2 });
  });
});
