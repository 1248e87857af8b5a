import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError, git, gitPaths, gitSucceeds } from './git';

let base: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'hs-git-'));
  await git(base, ['init', '--quiet']);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('git wrapper', () => {
  it('raises a typed error carrying what git said', async () => {
    const failure = await git(base, ['rev-parse', '--verify', 'no-such-ref']).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GitError);
    expect(failure).toMatchObject({ code: 'WORKSPACE.GIT_FAILED', exitCode: 128, details: { args: ['rev-parse', '--verify', 'no-such-ref'] } });
    expect((failure as GitError).stderr).toMatch(/no-such-ref|Needed a single revision/);
  });

  it('reports the exit code instead when failure is allowed', async () => {
    expect((await git(base, ['rev-parse', '--verify', '--quiet', 'HEAD'], { allowFailure: true })).code).toBe(1);
    expect(await gitSucceeds(base, ['rev-parse', '--git-dir'])).toBe(true);
  });

  it('works in its own directory even when the caller’s environment points git elsewhere', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'hs-git-other-'));
    await git(elsewhere, ['init', '--quiet']);
    process.env.GIT_DIR = join(elsewhere, '.git');
    try {
      expect((await git(base, ['rev-parse', '--absolute-git-dir'])).stdout.trim()).toBe(join(base, '.git'));
    } finally {
      delete process.env.GIT_DIR;
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('lists paths with spaces, accents and newlines exactly as they are named', async () => {
    const names = ['notes café.md', 'odd\nname.txt'];
    for (const name of names) await writeFile(join(base, name), 'x\n');
    expect((await gitPaths(base, ['ls-files', '--others'])).sort()).toEqual(names.sort());
  });
});
