import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildClaudeSettings, hookBridgePath, readBridgeDenials, writeSessionPolicy, type SessionPolicyFiles } from './policy';

let root: string;
let files: SessionPolicyFiles;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-bridge-co-'));
  await mkdir(join(root, 'src/owned'), { recursive: true });
  files = await writeSessionPolicy({ checkoutRoot: root, ownedPaths: ['src/owned/**', 'README.md'], deniedBash: ['npm publish'] }, ['Read', 'Write', 'Edit', 'Bash(git:*)'], true);
});
afterEach(async () => {
  await files.cleanup();
  await rm(root, { recursive: true, force: true });
});

function bridge(input: Record<string, unknown>, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [hookBridgePath(), files.policyPath], { env: { PATH: process.env.PATH, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'PreToolUse', tool_use_id: 'toolu_1', ...input }));
  });
}

const decision = (stdout: string) => (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;

describe('the Claude Code hook bridge without an engine', () => {
  it.each([
    ['a write outside the owned paths', { tool_name: 'Write', tool_input: { file_path: 'src/other.ts', content: 'x' } }, 'outside the owned paths'],
    ['a write outside the checkout', { tool_name: 'Write', tool_input: { file_path: '/etc/hs-test', content: 'x' } }, 'outside the checkout'],
    ['an edit climbing out with ..', { tool_name: 'Edit', tool_input: { file_path: 'src/owned/../../../x', old_string: 'a', new_string: 'b' } }, 'outside the checkout'],
    ['chmod 777', { tool_name: 'Bash', tool_input: { command: 'chmod 777 x' } }, 'chmod 777'],
    ['a force push with the flag last', { tool_name: 'Bash', tool_input: { command: 'git add . && git push origin main --force' } }, 'git push --force'],
    ['git push -f', { tool_name: 'Bash', tool_input: { command: 'git push -f' } }, 'git push -f'],
    ['a command the policy adds', { tool_name: 'Bash', tool_input: { command: 'npm publish --access public' } }, 'npm publish'],
    ['the Agent tool', { tool_name: 'Agent', tool_input: { prompt: 'do it', subagent_type: 'general-purpose' } }, 'Agent tool is not allowed'],
  ])('denies %s and records it', async (_what, input, reason) => {
    const out = await bridge(input);
    expect(out.code).toBe(0);
    expect(decision(out.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining(reason) });
    expect(await readBridgeDenials(files.denialsPath)).toEqual([expect.objectContaining({ source: 'hook', toolName: input.tool_name, toolUseId: 'toolu_1', blocking: true })]);
  });

  it('denies a write through a symlink that leads out of the checkout', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'hs-bridge-out-'));
    await symlink(outside, join(root, 'src/owned/link'));
    const out = await bridge({ tool_name: 'Write', tool_input: { file_path: 'src/owned/link/x.ts', content: 'x' } });
    expect(decision(out.stdout).permissionDecision).toBe('deny');
    await rm(outside, { recursive: true, force: true });
  });

  it('lets owned writes, allowed commands and the structured output through with no opinion', async () => {
    for (const input of [
      { tool_name: 'Write', tool_input: { file_path: join(root, 'src/owned/deep/a.ts'), content: 'x' } },
      { tool_name: 'Edit', tool_input: { file_path: 'README.md', old_string: 'a', new_string: 'b' } },
      { tool_name: 'Bash', tool_input: { command: 'git status' } },
      { tool_name: 'StructuredOutput', tool_input: { ok: true } },
    ]) {
      const out = await bridge(input);
      expect({ input, code: out.code, stdout: out.stdout }).toEqual({ input, code: 0, stdout: '' });
    }
    expect(await readBridgeDenials(files.denialsPath)).toEqual([]);
  });
});

describe('the Claude Code hook bridge with an engine', () => {
  let server: Server;
  let url: string;
  const received: Array<{ body: Record<string, unknown>; session?: string }> = [];
  let answer: (body: Record<string, unknown>) => { status: number; body: string };

  beforeEach(async () => {
    received.length = 0;
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        received.push({ body, session: req.headers['x-headspace-session'] as string | undefined });
        const a = answer(body);
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterEach(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('forwards the hook input and prints the engine\'s decision, recording a denial', async () => {
    const deny = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'security guard: no curl' } };
    answer = () => ({ status: 200, body: JSON.stringify(deny) });
    const out = await bridge({ tool_name: 'Bash', tool_input: { command: 'git fetch' } }, { HEADSPACE_HOOK_URL: url, HEADSPACE_SESSION_ID: 'sess-9' });
    expect(JSON.parse(out.stdout)).toEqual(deny);
    expect(received).toEqual([{ body: expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git fetch' } }), session: 'sess-9' }]);
    expect(await readBridgeDenials(files.denialsPath)).toEqual([expect.objectContaining({ toolName: 'Bash', reason: 'security guard: no curl' })]);
  });

  it('forwards the other events and prints nothing for an empty answer', async () => {
    answer = () => ({ status: 200, body: '' });
    const out = await bridge({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'git status' }, tool_response: { stdout: '' } }, { HEADSPACE_HOOK_URL: url });
    expect(out).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(received.map((r) => r.body.hook_event_name)).toEqual(['PostToolUse']);
  });

  it('does not ask the engine about a call the policy already denies', async () => {
    answer = () => ({ status: 200, body: '' });
    const out = await bridge({ tool_name: 'Bash', tool_input: { command: 'chmod 777 x' } }, { HEADSPACE_HOOK_URL: url });
    expect(decision(out.stdout).permissionDecision).toBe('deny');
    expect(received).toEqual([]);
  });

  it.each([
    ['answers 500', 'HTTP 500'],
    ['is not listening', 'ECONNREFUSED'],
  ])('fails closed for tool calls when the engine %s, and stays silent on other events', async (what) => {
    answer = () => ({ status: 500, body: '{"error":"boom"}' });
    const target = what === 'is not listening' ? 'http://127.0.0.1:9/hooks' : url;
    const pre = await bridge({ tool_name: 'Bash', tool_input: { command: 'git status' } }, { HEADSPACE_HOOK_URL: target });
    expect(decision(pre.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('unreachable') });
    const post = await bridge({ hook_event_name: 'Stop' }, { HEADSPACE_HOOK_URL: target });
    expect(post).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('the generated settings', () => {
  it('allow writes only in the owned paths, deny dangerous commands and delegation, and hook the bridge', () => {
    const settings = buildClaudeSettings({
      policy: { checkoutRoot: '/work/co', ownedPaths: ['src/domain/**'] },
      tools: ['Read', 'Edit', 'Write', 'Bash(git:*)'],
      hookCommand: 'bridge',
      forwardAllEvents: false,
    }) as { permissions: { allow: string[]; deny: string[]; defaultMode: string }; hooks: Record<string, unknown> };
    expect(settings.permissions.allow).toEqual(['Read', 'Edit(//work/co/src/domain/**)', 'Write(//work/co/src/domain/**)', 'Bash(git:*)']);
    expect(settings.permissions.deny).toEqual(expect.arrayContaining(['Bash(chmod 777:*)', 'Bash(git push --force:*)', 'Bash(git push -f:*)', 'Edit(//work/co/.git/**)', 'Agent', 'Task']));
    expect(settings.permissions.defaultMode).toBe('dontAsk');
    expect(settings.hooks).toEqual({ PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'bridge', timeout: 30 }] }] });
  });

  it('hooks every forwarded event when an engine listens, and allows Agent only when asked', () => {
    const settings = buildClaudeSettings({ policy: { checkoutRoot: '/co', ownedPaths: [] }, tools: ['Agent', 'Write'], hookCommand: 'b', forwardAllEvents: true }) as {
      permissions: { allow: string[]; deny: string[] };
      hooks: Record<string, unknown>;
    };
    expect(Object.keys(settings.hooks)).toEqual(expect.arrayContaining(['PreToolUse', 'PostToolUse', 'Stop', 'SessionStart', 'SubagentStop', 'UserPromptSubmit']));
    expect(settings.permissions.deny).not.toEqual(expect.arrayContaining(['Agent']));
    expect(settings.permissions.deny).not.toEqual(expect.arrayContaining(['Task']));
    expect(settings.permissions.allow).toEqual(['Agent', 'Write(//co/**)']);
  });
});
