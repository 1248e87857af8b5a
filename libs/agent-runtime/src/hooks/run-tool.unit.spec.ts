import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { workspaceTools } from '../tools';
import { InMemoryToolCallJournal, ToolRegistry } from '../tools/registry';
import { makeTempDir, removeDir, writeFiles } from '../tools/testing/temp-workspace';
import { registerBuiltinHooks } from './builtins';
import { HookEngine, hookDecisions } from './engine';
import { runTool } from './run-tool';
import { writeScript } from './testing/scripts';

describe('runTool: hooks, permissions and execution in one call', () => {
  let root: string;
  let scripts: string;
  beforeEach(async () => {
    root = await makeTempDir();
    scripts = await makeTempDir('hs-scripts-');
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(scripts);
  });
  const ctx = () => ({ workspaceRoot: root, agentId: 'con', sessionId: 'sess-1' });
  const exists = (rel: string) => stat(path.join(root, rel)).then(() => true, () => false);
  const bashCall = (id: string, command: string) => ({ id, name: 'Bash', input: { command } });

  it('a command hook exiting 2 stops a dangerous Bash call, and its stderr is what the model sees', async () => {
    const guard = await writeScript(scripts, 'guard.sh', `input=$(cat)\nif grep -q 'pwned' <<<"$input"; then echo "Refusing to touch pwned files" >&2; exit 2; fi`);
    const hooks = new HookEngine();
    hooks.addSettings('project', { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard }] }] } });
    const r = await runTool({ registry: new ToolRegistry({ tools: workspaceTools }), hooks, call: bashCall('toolu_1', 'touch pwned'), ctx: ctx() });
    expect(r.stage).toBe('denied-by-hook');
    expect(r.block).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Refusing to touch pwned files', is_error: true });
    expect(r.result.code).toBe(ErrorCodes.toolDeniedByHook);
    expect(r.outcomes).toEqual([expect.objectContaining({ event: 'PreToolUse', result: 'deny', exitCode: 2 })]);
    expect(hookDecisions(r.outcomes)).toEqual([{ event: 'PreToolUse', decision: 'deny', reason: 'Refusing to touch pwned files' }]);
    expect(await exists('pwned')).toBe(false);
  });

  it('the built-in security guard stops rm -rf ~ before it runs', async () => {
    const hooks = new HookEngine();
    registerBuiltinHooks(hooks);
    const r = await runTool({ registry: new ToolRegistry({ tools: workspaceTools }), hooks, call: bashCall('toolu_1', 'rm -rf ~'), ctx: ctx() });
    expect(r).toMatchObject({ stage: 'denied-by-hook', result: { isError: true, content: expect.stringContaining('security guard') } });
  });

  it('updatedInput from a hook changes the command that is executed', async () => {
    const rewrite = await writeScript(scripts, 'rewrite.sh', `cat >/dev/null\necho '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo rewritten > out.txt"}}}'`);
    const hooks = new HookEngine();
    hooks.addSettings('project', { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: rewrite }] }] } });
    const r = await runTool({ registry: new ToolRegistry({ tools: workspaceTools }), hooks, call: bashCall('toolu_1', 'echo original > out.txt'), ctx: ctx() });
    expect(r.stage).toBe('executed');
    expect(r.input).toEqual({ command: 'echo rewritten > out.txt' });
    expect(await readFile(path.join(root, 'out.txt'), 'utf8')).toBe('rewritten\n');
  });

  it('permission rules still apply after hooks allow the call', async () => {
    const hooks = new HookEngine();
    hooks.addSettings('project', { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `echo '{"permissionDecision":"allow"}'` }] }] } });
    const registry = new ToolRegistry({ tools: workspaceTools, policy: { tools: ['Bash(git:*)'] } });
    const r = await runTool({ registry, hooks, call: bashCall('toolu_1', 'npm install'), ctx: ctx() });
    expect(r).toMatchObject({ stage: 'refused', result: { code: ErrorCodes.toolNotAllowed } });
  });

  it('"ask" goes to PermissionRequest hooks, then to askPermission, and is refused when nobody answers', async () => {
    const hooks = new HookEngine();
    hooks.addSettings('project', { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `echo '{"permissionDecision":"ask","reason":"writes config"}'` }] }] } });
    const registry = new ToolRegistry({ tools: workspaceTools });
    const write = (id: string) => ({ id, name: 'Write', input: { file_path: 'config.yml', content: 'a: 1' } });

    const unanswered = await runTool({ registry, hooks, call: write('t1'), ctx: ctx() });
    expect(unanswered).toMatchObject({ stage: 'denied-by-hook', result: { code: ErrorCodes.toolApprovalRequired, content: expect.stringContaining('writes config') } });
    expect(await exists('config.yml')).toBe(false);

    const operatorSaysNo = await runTool({ registry, hooks, call: write('t2'), ctx: ctx(), askPermission: async () => 'deny' });
    expect(operatorSaysNo.result.code).toBe(ErrorCodes.toolDeniedByHook);
    const operatorSaysYes = await runTool({ registry, hooks, call: write('t3'), ctx: ctx(), askPermission: async (q) => (q.toolName === 'Write' ? 'allow' : 'deny') });
    expect(operatorSaysYes.stage).toBe('executed');

    hooks.addSettings('managed', { hooks: { PermissionRequest: [{ matcher: 'Write', hooks: [{ type: 'command', command: `echo '{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"file_path":"approved.yml","content":"a: 2"}}}}'` }] }] } });
    const autoAllowed = await runTool({ registry, hooks, call: write('t4'), ctx: ctx() });
    expect(autoAllowed.stage).toBe('executed');
    expect(await readFile(path.join(root, 'approved.yml'), 'utf8')).toBe('a: 2');
    expect(autoAllowed.outcomes.map((o) => `${o.event}:${o.result}`)).toEqual(['PreToolUse:ask', 'PermissionRequest:allow']);
  });

  it('"ask" that no PermissionRequest hook decides fires Notification (permission_prompt) before a person is asked', async () => {
    const hooks = new HookEngine();
    hooks.addSettings('project', {
      hooks: {
        PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `echo '{"permissionDecision":"ask"}'` }] }],
        Notification: [{ matcher: 'permission_prompt', hooks: [{ type: 'command', command: `cat > "${scripts}/notification.json"` }] }],
      },
    });
    const registry = new ToolRegistry({ tools: workspaceTools });
    const asked: string[] = [];
    const r = await runTool({ registry, hooks, call: { id: 't1', name: 'Write', input: { file_path: 'x.yml', content: 'a' } }, ctx: ctx(), askPermission: async (q) => (asked.push(q.toolName), 'deny') });
    expect(r.outcomes.map((o) => `${o.event}:${o.result}`)).toEqual(['PreToolUse:ask', 'Notification:noop']);
    expect(asked).toEqual(['Write']);
    expect(JSON.parse(await readFile(path.join(scripts, 'notification.json'), 'utf8'))).toMatchObject({ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Headspace needs your permission to use Write' });
  });

  it('fires PostToolUse with the tool response, or PostToolUseFailure when the tool fails, and shows exit-2 feedback', async () => {
    await writeFiles(root, { 'a.txt': 'one\n' });
    const dump = await writeScript(scripts, 'dump.sh', `cat >> "${scripts}/post.jsonl"; echo >> "${scripts}/post.jsonl"`);
    const nag = await writeScript(scripts, 'nag.sh', `cat >/dev/null\necho "remember to update the changelog" >&2\nexit 2`);
    const hooks = new HookEngine();
    hooks.addSettings('project', {
      hooks: {
        PostToolUse: [{ hooks: [{ type: 'command', command: dump }] }, { matcher: 'Edit', hooks: [{ type: 'command', command: nag }] }],
        PostToolUseFailure: [{ hooks: [{ type: 'command', command: dump }] }],
      },
    });
    const registry = new ToolRegistry({ tools: workspaceTools });
    const edit = await runTool({ registry, hooks, call: { id: 't1', name: 'Edit', input: { file_path: 'a.txt', old_string: 'one', new_string: 'two' } }, ctx: ctx() });
    expect(edit.result.content).toBe('Edited a.txt: replaced 1 occurrence.\n\n<hook-feedback>\nremember to update the changelog\n</hook-feedback>');
    await runTool({ registry, hooks, call: bashCall('t2', 'exit 4'), ctx: ctx() });
    const events = (await readFile(path.join(scripts, 'post.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(events[0]).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_response: { is_error: false, files_modified: ['a.txt'] } });
    expect(events[1]).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', error: expect.stringContaining('Exit code: 4'), error_code: ErrorCodes.toolExecutionFailed });
  });

  it('a resumed session replays a completed call from the journal: no second side effect, no hooks', async () => {
    const journal = new InMemoryToolCallJournal();
    const counter = await writeScript(scripts, 'count.sh', `cat >/dev/null\necho x >> "${scripts}/hook-runs.txt"`);
    const hooks = new HookEngine();
    hooks.addSettings('project', { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: counter }] }] } });
    const call = bashCall('toolu_send', 'echo sent >> outbox.txt');
    const first = await runTool({ registry: new ToolRegistry({ tools: workspaceTools, journal }), hooks, call, ctx: ctx() });
    const again = await runTool({ registry: new ToolRegistry({ tools: workspaceTools, journal }), hooks, call, ctx: ctx() });
    expect(again).toMatchObject({ stage: 'replayed', result: first.result, outcomes: [] });
    expect(await readFile(path.join(root, 'outbox.txt'), 'utf8')).toBe('sent\n');
    expect(await readFile(path.join(scripts, 'hook-runs.txt'), 'utf8')).toBe('x\n');
  });

  it('works without a hook engine', async () => {
    const r = await runTool({ registry: new ToolRegistry({ tools: workspaceTools }), call: bashCall('t1', 'echo hi'), ctx: ctx() });
    expect(r).toMatchObject({ stage: 'executed', outcomes: [], result: { isError: false, content: 'hi\nExit code: 0' } });
  });
});
