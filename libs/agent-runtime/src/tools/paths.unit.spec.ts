import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { resolveInWorkspace } from './paths';
import { makeTempDir, removeDir, writeFiles } from './testing/temp-workspace';

describe('resolveInWorkspace', () => {
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await makeTempDir();
    outside = await makeTempDir('hs-outside-');
    await writeFiles(root, { 'src/a.ts': 'a' });
    await writeFiles(outside, { 'secret.txt': 'secret' });
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(outside);
  });

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => (e instanceof HeadspaceError ? e.code : String(e)),
    );

  it('resolves relative and absolute paths inside the workspace, existing or not', async () => {
    expect(await resolveInWorkspace(root, 'src/a.ts')).toEqual({ absolute: path.join(root, 'src/a.ts'), relative: 'src/a.ts' });
    expect((await resolveInWorkspace(root, path.join(root, 'new/dir/b.ts'))).relative).toBe('new/dir/b.ts');
    expect((await resolveInWorkspace(root, '.')).relative).toBe('.');
    expect((await resolveInWorkspace(root, 'src/../src/a.ts')).relative).toBe('src/a.ts');
  });

  it.each([['../x'], ['src/../../etc/passwd'], ['/etc/passwd']])('refuses %s as outside the workspace', async (p) => {
    expect(await refusal(resolveInWorkspace(root, p))).toBe(ErrorCodes.toolPathOutsideWorkspace);
  });

  it('refuses a symlinked directory that points outside, for reads and for new files under it', async () => {
    await symlink(outside, path.join(root, 'escape'));
    expect(await refusal(resolveInWorkspace(root, 'escape/secret.txt'))).toBe(ErrorCodes.toolPathOutsideWorkspace);
    expect(await refusal(resolveInWorkspace(root, 'escape/new/file.txt'))).toBe(ErrorCodes.toolPathOutsideWorkspace);
  });

  it('refuses a symlinked file that points outside', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    expect(await refusal(resolveInWorkspace(root, 'link.txt'))).toBe(ErrorCodes.toolPathOutsideWorkspace);
  });

  it('refuses a dangling symlink (writing through it would create a file elsewhere)', async () => {
    await symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling.txt'));
    expect(await refusal(resolveInWorkspace(root, 'dangling.txt'))).toBe(ErrorCodes.toolPathOutsideWorkspace);
  });

  it('accepts a symlink that stays inside the workspace', async () => {
    await mkdir(path.join(root, 'lib'));
    await symlink(path.join(root, 'src'), path.join(root, 'lib/src-link'));
    expect((await resolveInWorkspace(root, 'lib/src-link/a.ts')).relative).toBe('src/a.ts');
  });

  it('refuses empty paths and NUL bytes', async () => {
    expect(await refusal(resolveInWorkspace(root, ''))).toBe(ErrorCodes.toolPathOutsideWorkspace);
    expect(await refusal(resolveInWorkspace(root, 'a\0b'))).toBe(ErrorCodes.toolPathOutsideWorkspace);
  });
});
