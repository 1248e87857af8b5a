import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { makeTempDir, removeDir } from '../tools/testing/temp-workspace';
import { compileMatcher, loadHookSettingsFiles, parseHookSettings } from './config';

const thrown = (fn: () => unknown): HeadspaceError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof HeadspaceError) return e;
    throw e;
  }
  throw new Error('expected a HeadspaceError');
};

describe('hooks config', () => {
  it('accepts the seed format with all three handler types and keeps other settings keys', () => {
    const settings = parseHookSettings({
      model: 'sonnet',
      env: { ENABLE_TOOL_SEARCH: '1' },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh', timeout: 30 }] }],
        Stop: [{ hooks: [{ type: 'prompt', prompt: 'Are the tests green? $ARGUMENTS' }] }],
        PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'agent', prompt: 'Check the change', async: true }] }],
      },
    });
    expect(settings.hooks?.PreToolUse?.[0].hooks[0]).toEqual({ type: 'command', command: 'guard.sh', timeout: 30 });
    expect(settings.env).toEqual({ ENABLE_TOOL_SEARCH: '1' });
  });

  it.each([
    [{ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' }] }] } }, 'hooks.PreToolUse[0].hooks[0].command'],
    [{ hooks: { PreToolUze: [] } }, 'hooks.PreToolUze'],
    [{ hooks: { Stop: [{ hooks: [{ type: 'script', command: 'x' }] }] } }, 'hooks.Stop[0].hooks[0].type'],
    [{ hooks: { PreToolUse: [{ matcher: '(Bash', hooks: [{ type: 'command', command: 'x' }] }] } }, 'hooks.PreToolUse[0].matcher'],
    [{ hooks: { PostToolUse: [{ hooks: [] }] } }, 'hooks.PostToolUse[0].hooks'],
    [{ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] } }, 'hooks.SessionStart[0].hooks[0].timeout'],
    [{ allowManagedHooksOnly: 'yes' }, 'allowManagedHooksOnly'],
  ])('rejects %j naming the path %s', (raw, at) => {
    const e = thrown(() => parseHookSettings(raw, 'project settings'));
    expect(e.code).toBe(ErrorCodes.hookConfigInvalid);
    expect(e.field).toBe(at);
    expect(e.message).toContain(`project settings: ${at}:`);
  });

  it('matchers are anchored regexes; empty and * match everything', () => {
    expect(compileMatcher('Edit|Write')?.test('Write')).toBe(true);
    expect(compileMatcher('Edit|Write')?.test('WriteFile')).toBe(false);
    expect(compileMatcher('mcp__.*')?.test('mcp__github__push')).toBe(true);
    expect(compileMatcher('*')).toBeUndefined();
    expect(compileMatcher('')).toBeUndefined();
  });
});

describe('loadHookSettingsFiles', () => {
  let home: string;
  let project: string;
  beforeEach(async () => {
    home = await makeTempDir('hs-home-');
    project = await makeTempDir('hs-proj-');
  });
  afterEach(async () => {
    await removeDir(home);
    await removeDir(project);
  });
  const put = async (file: string, value: unknown) => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
  };
  const hook = (command: string) => ({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command }] }] } });

  it('reads managed, local, project and user files in Claude Code precedence order, .claude before .headspace, skipping missing ones', async () => {
    const managed = path.join(home, 'managed.json');
    await put(managed, hook('managed.sh'));
    await put(path.join(home, '.claude/settings.json'), hook('user.sh'));
    await put(path.join(project, '.claude/settings.json'), hook('project.sh'));
    await put(path.join(project, '.headspace/settings.json'), hook('project-hs.sh'));
    await put(path.join(project, '.claude/settings.local.json'), hook('local.sh'));
    const files = await loadHookSettingsFiles({ homeDir: home, projectDir: project, managedPath: managed });
    expect(files.map((f) => [f.scope, f.settings.hooks?.PreToolUse?.[0].hooks[0]])).toEqual([
      ['managed', { type: 'command', command: 'managed.sh' }],
      ['local', { type: 'command', command: 'local.sh' }],
      ['project', { type: 'command', command: 'project.sh' }],
      ['project', { type: 'command', command: 'project-hs.sh' }],
      ['user', { type: 'command', command: 'user.sh' }],
    ]);
  });

  it('names the file when it is not JSON or not a valid config', async () => {
    const file = path.join(home, '.headspace/settings.json');
    await put(file, '{ not json');
    await expect(loadHookSettingsFiles({ homeDir: home })).rejects.toMatchObject({ code: ErrorCodes.hookConfigInvalid, message: expect.stringContaining(file) });
    await put(file, { hooks: { Stop: [{ hooks: [{ type: 'command', command: '' }] }] } });
    await expect(loadHookSettingsFiles({ homeDir: home })).rejects.toMatchObject({ field: 'hooks.Stop[0].hooks[0].command', message: expect.stringContaining(file) });
  });
});
