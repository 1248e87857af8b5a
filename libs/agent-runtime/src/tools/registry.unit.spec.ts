import { readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { workspaceTools } from './index';
import { InMemoryToolCallJournal, policyFromManifestMember, ToolRegistry } from './registry';
import { createTeamTools } from './team-tools';
import { FakeTeamPort } from './testing/fake-team-port';
import { makeTempDir, removeDir, writeFiles } from './testing/temp-workspace';

describe('ToolRegistry', () => {
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await makeTempDir();
    outside = await makeTempDir('hs-outside-');
    await writeFiles(root, { 'src/domain/user.ts': 'export const user = 1;\n', 'src/infra/db.ts': 'export const db = 1;\n' });
    await writeFiles(outside, { 'secret.txt': 'top secret' });
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(outside);
  });
  const ctx = () => ({ workspaceRoot: root, agentId: 'al', sessionId: 'sess-1' });
  const exists = (rel: string) => stat(path.join(root, rel)).then(() => true, () => false);

  it('offers only the allowlisted tools (plus team tools) in the API tools array, with JSON schemas', () => {
    const registry = new ToolRegistry({ tools: [...workspaceTools, ...createTeamTools(new FakeTeamPort())], policy: { tools: ['Read', 'Grep', 'Bash(git:*)'] } });
    const tools = registry.apiTools();
    expect(tools.map((t) => t.name)).toEqual(['Read', 'Grep', 'Bash', 'list_tasks', 'create_tasks', 'claim_task', 'complete_task', 'release_task', 'send_message', 'broadcast_message', 'lock_file', 'unlock_file', 'request_approval', 'check_approval']);
    const read = tools.find((t) => t.name === 'Read');
    expect(read?.input_schema).toMatchObject({ type: 'object', required: ['file_path'], properties: { file_path: { type: 'string' } } });
    expect(read?.input_schema).not.toHaveProperty('$schema');
  });

  it('disallowedTools wins over the allowlist and hides fully banned tools', async () => {
    const registry = new ToolRegistry({ tools: workspaceTools, policy: { tools: ['Read', 'Write', 'Bash'], disallowedTools: ['Write', 'Bash(rm:*)'] } });
    expect(registry.apiTools().map((t) => t.name)).toEqual(['Read', 'Bash']);
    expect((await registry.dispatch({ id: 't1', name: 'Write', input: { file_path: 'a.txt', content: 'x' } }, ctx())).result.code).toBe(ErrorCodes.toolNotAllowed);
    expect((await registry.dispatch({ id: 't2', name: 'Bash', input: { command: 'ls && rm -r src' } }, ctx())).result.code).toBe(ErrorCodes.toolNotAllowed);
    expect(await exists('src/domain/user.ts')).toBe(true);
    expect((await registry.dispatch({ id: 't3', name: 'Bash', input: { command: 'ls src' } }, ctx())).stage).toBe('executed');
  });

  it('turns bad input and unknown tools into error results the model sees', async () => {
    const registry = new ToolRegistry({ tools: workspaceTools });
    const bad = await registry.dispatch({ id: 't1', name: 'Read', input: { file_path: 42 } }, ctx());
    expect(bad).toMatchObject({ stage: 'invalid', result: { isError: true, code: ErrorCodes.toolInputInvalid } });
    expect(bad.result.content).toContain('file_path');
    const unknown = await registry.dispatch({ id: 't2', name: 'Teleport', input: {} }, ctx());
    expect(unknown.result).toMatchObject({ isError: true, code: ErrorCodes.toolUnknown });
  });

  it('Bash(git:*) allows git status and refuses npm install', async () => {
    const registry = new ToolRegistry({ tools: workspaceTools, policy: { tools: ['Read', 'Bash(git:*)'] } });
    const git = await registry.dispatch({ id: 't1', name: 'Bash', input: { command: 'git --version' } }, ctx());
    expect(git.stage).toBe('executed');
    expect(git.result.content).toContain('git version');
    const npm = await registry.dispatch({ id: 't2', name: 'Bash', input: { command: 'npm install left-pad' } }, ctx());
    expect(npm).toMatchObject({ stage: 'refused', result: { isError: true, code: ErrorCodes.toolNotAllowed } });
    expect(npm.result.content).toContain('"npm install left-pad" is not allowed');
    const write = await registry.dispatch({ id: 't3', name: 'Write', input: { file_path: 'x.txt', content: 'x' } }, ctx());
    expect(write.result.code).toBe(ErrorCodes.toolNotAllowed);
    expect(await exists('x.txt')).toBe(false);
  });

  it('enforces path specifiers such as Write(src/**)', async () => {
    const registry = new ToolRegistry({ tools: workspaceTools, policy: { tools: ['Write(src/**)'] } });
    expect((await registry.dispatch({ id: 't1', name: 'Write', input: { file_path: 'src/new.ts', content: '1' } }, ctx())).stage).toBe('executed');
    expect((await registry.dispatch({ id: 't2', name: 'Write', input: { file_path: 'package.json', content: '{}' } }, ctx())).result.code).toBe(ErrorCodes.toolNotAllowed);
  });

  it('refuses path traversal and symlink escapes before the tool runs', async () => {
    await symlink(outside, path.join(root, 'escape'));
    const registry = new ToolRegistry({ tools: workspaceTools });
    for (const [id, name, input] of [
      ['t1', 'Read', { file_path: '../' + path.basename(outside) + '/secret.txt' }],
      ['t2', 'Read', { file_path: path.join(outside, 'secret.txt') }],
      ['t3', 'Read', { file_path: 'escape/secret.txt' }],
      ['t4', 'Write', { file_path: 'escape/planted.txt', content: 'x' }],
      ['t5', 'Grep', { pattern: 'secret', path: 'escape' }],
    ] as const) {
      const r = await registry.dispatch({ id, name, input }, ctx());
      expect(r).toMatchObject({ stage: 'refused', result: { isError: true, code: ErrorCodes.toolPathOutsideWorkspace } });
      expect(r.result.content).not.toContain('top secret');
    }
    expect(await stat(path.join(outside, 'planted.txt')).then(() => true, () => false)).toBe(false);
  });

  it('refuses a write outside owns under the refuse policy', async () => {
    const registry = new ToolRegistry({ tools: workspaceTools, policy: { owns: ['src/domain/**'], ownsPolicy: 'refuse' } });
    const r = await registry.dispatch({ id: 't1', name: 'Edit', input: { file_path: 'src/infra/db.ts', old_string: 'db = 1', new_string: 'db = 2' } }, ctx());
    expect(r.result).toMatchObject({ isError: true, code: ErrorCodes.toolWriteOutsideOwns });
    expect(await readFile(path.join(root, 'src/infra/db.ts'), 'utf8')).toContain('db = 1');
    const inside = await registry.dispatch({ id: 't2', name: 'Edit', input: { file_path: 'src/domain/user.ts', old_string: 'user = 1', new_string: 'user = 2' } }, ctx());
    expect(inside.result).toMatchObject({ isError: false, filesModified: ['src/domain/user.ts'] });
  });

  it('allows a write outside owns only while this agent holds the lock (require-lock)', async () => {
    const team = new FakeTeamPort(['al', 'con']);
    const registry = new ToolRegistry({ tools: [...workspaceTools, ...createTeamTools(team)], policy: { owns: ['src/domain/**'], ownsPolicy: 'require-lock' }, lockChecker: team });
    const edit = { name: 'Edit', input: { file_path: 'src/infra/db.ts', old_string: 'db = 1', new_string: 'db = 2' } };
    const before = await registry.dispatch({ id: 't1', ...edit }, ctx());
    expect(before.result).toMatchObject({ isError: true, code: ErrorCodes.toolWriteOutsideOwns });
    expect(before.result.content).toContain('lock_file');

    team.locks.set('src/infra/db.ts', 'con');
    expect((await registry.dispatch({ id: 't2', ...edit }, ctx())).result.code).toBe(ErrorCodes.toolWriteOutsideOwns);

    team.locks.delete('src/infra/db.ts');
    expect((await registry.dispatch({ id: 't3', name: 'lock_file', input: { path: './src/infra/db.ts' } }, ctx())).result.isError).toBe(false);
    expect(team.locks.get('src/infra/db.ts')).toBe('al');
    const after = await registry.dispatch({ id: 't4', ...edit }, ctx());
    expect(after.result).toMatchObject({ isError: false, filesModified: ['src/infra/db.ts'] });
  });

  it('takes its policy from a team-manifest member (seed 001 example persona)', async () => {
    const member = { name: 'al', role: 'domain dev', tools: ['Read', 'Write', 'Edit', 'Grep', 'Glob', 'Bash(git:*)', 'Bash(uv run pytest:*)'], owns: ['src/domain/**', 'tests/**'] };
    const registry = new ToolRegistry({ tools: workspaceTools, policy: policyFromManifestMember(member, 'refuse') });
    expect((await registry.dispatch({ id: 't1', name: 'Write', input: { file_path: 'tests/test_user.py', content: 'x' } }, ctx())).stage).toBe('executed');
    expect((await registry.dispatch({ id: 't2', name: 'Write', input: { file_path: 'src/infra/new.py', content: 'x' } }, ctx())).result.code).toBe(ErrorCodes.toolWriteOutsideOwns);
    expect((await registry.dispatch({ id: 't3', name: 'Bash', input: { command: 'uv run python evil.py' } }, ctx())).result.code).toBe(ErrorCodes.toolNotAllowed);
  });

  it('refuses writes to hook settings and git internals whatever the policy', async () => {
    const registry = new ToolRegistry({ tools: workspaceTools, policy: { ownsPolicy: 'allow' } });
    const r = await registry.dispatch({ id: 't1', name: 'Write', input: { file_path: '.headspace/settings.json', content: '{"hooks":{}}' } }, ctx());
    expect(r.result).toMatchObject({ isError: true, code: ErrorCodes.toolNotAllowed });
    expect(await exists('.headspace/settings.json')).toBe(false);
  });

  it('replays a completed call from the journal instead of repeating its side effect', async () => {
    const journal = new InMemoryToolCallJournal();
    const registry = new ToolRegistry({ tools: workspaceTools, journal });
    const call = { id: 'toolu_append', name: 'Bash', input: { command: 'echo line >> log.txt' } };
    const first = await registry.dispatch(call, ctx());
    expect(first.stage).toBe('executed');
    // A resumed session sees the same tool_use block again, with a fresh registry over the same journal.
    const resumed = new ToolRegistry({ tools: workspaceTools, journal });
    const second = await resumed.dispatch(call, ctx());
    expect(second).toEqual({ stage: 'replayed', result: first.result });
    expect(await readFile(path.join(root, 'log.txt'), 'utf8')).toBe('line\n');
  });
});
