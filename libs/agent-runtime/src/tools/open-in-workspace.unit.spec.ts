import { readdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { editTool, grepTool, multiEditTool, readTool, writeTool } from './fs-tools';
import { workspaceOpenProbe } from './paths';
import { errorToResult } from './registry';
import { makeTempDir, removeDir, writeFiles } from './testing/temp-workspace';
import type { AnyToolDefinition, ToolContext, ToolResult } from './types';

// A racing process (the agent's own Bash, say) swaps a symlink in after the path was checked and
// before the file is opened. The probe runs exactly there, so the race is won every time.
describe('file tools when a symlink is swapped in after the path check', () => {
  let root: string;
  let outside: string;
  let ctx: ToolContext;
  beforeEach(async () => {
    root = await makeTempDir();
    outside = await makeTempDir('hs-outside-');
    ctx = { workspaceRoot: root, agentId: 'con', toolUseId: 'toolu_race' };
    await writeFiles(root, { 'sub/notes.txt': 'inside notes\n', 'top.txt': 'inside top\n' });
    await writeFiles(outside, { 'notes.txt': 'SECRET root:x:0:0\n', 'passwd': 'SECRET root:x:0:0\n' });
  });
  afterEach(async () => {
    workspaceOpenProbe.beforeOpen = undefined;
    await removeDir(root);
    await removeDir(outside);
  });

  /** Once, just before the open: replace `rel` (file or directory) with a symlink to `to`. */
  const swapOnce = (rel: string, to: string) => {
    let done = false;
    workspaceOpenProbe.beforeOpen = async () => {
      if (done) return;
      done = true;
      const at = path.join(root, rel);
      await rename(at, `${at}.moved`).catch(() => undefined);
      await symlink(to, at);
    };
  };
  /** As the registry runs a tool: a thrown refusal becomes the error result the model sees. */
  const run = (tool: AnyToolDefinition, input: unknown): Promise<ToolResult> => tool.execute(input, ctx).catch(errorToResult);
  const outsideFile = (name: string) => readFile(path.join(outside, name), 'utf8');

  it('Read refuses a directory swapped for a symlink to outside and shows nothing from there', async () => {
    swapOnce('sub', outside);
    const r = await run(readTool, { file_path: 'sub/notes.txt' });
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolPathOutsideWorkspace });
    expect(r.content).not.toContain('SECRET');
  });

  it('Read refuses a file swapped for a symlink to /etc/passwd-like target', async () => {
    swapOnce('top.txt', path.join(outside, 'passwd'));
    const r = await run(readTool, { file_path: 'top.txt' });
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolPathOutsideWorkspace });
    expect(r.content).not.toContain('SECRET');
  });

  it('Write through a swapped file symlink leaves the outside file untouched', async () => {
    swapOnce('top.txt', path.join(outside, 'passwd'));
    const r = await run(writeTool, { file_path: 'top.txt', content: 'owned\n' });
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolPathOutsideWorkspace });
    expect(await outsideFile('passwd')).toBe('SECRET root:x:0:0\n');
  });

  it('Write into a directory swapped for a symlink creates nothing outside', async () => {
    swapOnce('sub', outside);
    const r = await run(writeTool, { file_path: 'sub/planted.txt', content: 'owned\n' });
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolPathOutsideWorkspace });
    expect(await readdir(outside)).toEqual(['notes.txt', 'passwd']);
  });

  it('Write of a new nested file refuses a parent planted as a symlink while it was being created', async () => {
    await rm(path.join(root, 'sub'), { recursive: true });
    swapOnce('sub', outside);
    const r = await run(writeTool, { file_path: 'sub/deep/planted.txt', content: 'owned\n' });
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolPathOutsideWorkspace });
    expect(await readdir(outside)).toEqual(['notes.txt', 'passwd']);
  });

  it('Edit and MultiEdit through a swapped symlink change nothing outside', async () => {
    swapOnce('sub', outside);
    const edit = await run(editTool, { file_path: 'sub/notes.txt', old_string: 'SECRET', new_string: 'owned' });
    expect(edit).toMatchObject({ isError: true, code: ErrorCodes.toolPathOutsideWorkspace });
    swapOnce('top.txt', path.join(outside, 'passwd'));
    const multi = await run(multiEditTool, { file_path: 'top.txt', edits: [{ old_string: 'SECRET', new_string: 'owned' }] });
    expect(multi).toMatchObject({ isError: true, code: ErrorCodes.toolPathOutsideWorkspace });
    expect(await outsideFile('notes.txt')).toBe('SECRET root:x:0:0\n');
    expect(await outsideFile('passwd')).toBe('SECRET root:x:0:0\n');
  });

  it('Grep skips a file swapped for a symlink to outside and never shows its content', async () => {
    let swapped = false;
    workspaceOpenProbe.beforeOpen = async (absolute) => {
      if (swapped || !absolute.endsWith(path.join('sub', 'notes.txt'))) return;
      swapped = true;
      await rm(absolute);
      await symlink(path.join(outside, 'notes.txt'), absolute);
    };
    const r = await run(grepTool, { pattern: 'SECRET|inside', output_mode: 'content' });
    expect(swapped).toBe(true);
    expect(r.isError).toBe(false);
    expect(r.content).not.toContain('SECRET');
    expect(r.content).toContain('top.txt:1:inside top');
  });

  it('still reads and writes through a symlink that stays inside the workspace', async () => {
    await symlink(path.join(root, 'sub'), path.join(root, 'alias'));
    expect((await run(readTool, { file_path: 'alias/notes.txt' })).content).toContain('inside notes');
    const w = await run(writeTool, { file_path: 'alias/new.txt', content: 'x\n' });
    expect(w).toMatchObject({ isError: false, filesModified: ['sub/new.txt'] });
    expect(await readFile(path.join(root, 'sub/new.txt'), 'utf8')).toBe('x\n');
  });
});
