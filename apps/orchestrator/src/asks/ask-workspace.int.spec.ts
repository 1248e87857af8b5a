import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunSourcePolicy } from '../runs/run-source.policy';
import { git } from '../workspace/git';
import { AskWorkspace } from './ask-workspace';

let base: string;
let source: string;
let workspaces: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'hs-askws-'));
  source = join(base, 'projects', 'demo');
  workspaces = join(base, 'runs');
  await mkdir(source, { recursive: true });
  await writeFile(join(source, 'README.md'), 'This is teh demo.\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const askWorkspace = () => new AskWorkspace(workspaces, new RunSourcePolicy({ roots: [join(base, 'projects')], workspacesDir: workspaces }));

describe('AskWorkspace', () => {
  it('merges the agent’s work into the ask branch, leaves the source alone, and reports the same files when the finish is repeated (as after a crash)', async () => {
    const ws = askWorkspace();
    const checkout = await ws.prepare('fix-1', source, 'con');
    expect(checkout.branch).toBe('headspace/fix-1/main');
    expect(checkout.dir).toContain(join('.asks', 'fix-1', 'checkout'));
    await writeFile(join(checkout.worktree, 'README.md'), 'This is the demo.\n');

    const first = await ws.finish('fix-1', source, 'con', checkout.baseCommit, 'fix the typo');
    expect(first.files).toEqual(['README.md']);
    expect((await git(checkout.dir, ['show', `${checkout.branch}:README.md`])).stdout).toBe('This is the demo.\n');
    expect(await readFile(join(source, 'README.md'), 'utf8')).toBe('This is teh demo.\n');

    // A new process (the orchestrator restarted) finishing again: nothing left to merge, same answer.
    const again = await askWorkspace().finish('fix-1', source, 'con', checkout.baseCommit, 'fix the typo');
    expect(again).toEqual(first);
  });

  it('refuses a source outside the roots before reading it', async () => {
    await expect(askWorkspace().prepare('fix-2', '/etc', 'con')).rejects.toMatchObject({ code: 'RUN.SOURCE_NOT_ALLOWED' });
  });
});
