import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunSourcePolicy } from '../runs/run-source.policy';
import { git } from '../workspace/git';
import { checkpointRef, LoopWorkspace } from './loop-workspace';

let base: string;
let source: string;
let workspaces: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'hs-loopws-'));
  source = join(base, 'projects', 'demo');
  workspaces = join(base, 'runs');
  await mkdir(source, { recursive: true });
  await writeFile(join(source, 'README.md'), '# demo\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const loopWorkspace = () => new LoopWorkspace(workspaces, new RunSourcePolicy({ roots: [join(base, 'projects')], workspacesDir: workspaces }));
const head = async (dir: string) => (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();

describe('LoopWorkspace', () => {
  it('checkpoints an iteration once, counting its lines without the loop-context file, even when repeated by a restarted process', async () => {
    const ws = loopWorkspace();
    const checkout = await ws.prepare('l1', source, 'con');
    expect(checkout.branch).toBe('headspace/l1/con');
    await ws.writeContext(checkout.worktree, '# Loop context\n\nmany\nlines\nof\ncontext\n');
    await writeFile(join(checkout.worktree, 'a.txt'), 'one\ntwo\n');

    const first = await ws.checkpoint('l1', checkout.worktree, 1, checkout.head, 'loop l1 iteration 1');
    expect(first).not.toBe(checkout.head);
    expect((await git(checkout.worktree, ['rev-parse', checkpointRef('l1', 1)])).stdout.trim()).toBe(first);
    expect(await ws.diff(checkout.worktree, checkout.head, first)).toEqual({ lines: 2, files: ['a.txt'] });

    // A new process checkpointing the same iteration again: the same commit, no second one.
    const again = await loopWorkspace().checkpoint('l1', checkout.worktree, 1, checkout.head, 'loop l1 iteration 1');
    expect(again).toBe(first);
    expect(await head(checkout.worktree)).toBe(first);
  });

  it('adopts a commit made before a crash cut the pass off ahead of its ref', async () => {
    const ws = loopWorkspace();
    const checkout = await ws.prepare('l2', source, 'con');
    await writeFile(join(checkout.worktree, 'b.txt'), 'x\n');
    await git(checkout.worktree, ['add', '--all']);
    await git(checkout.worktree, ['commit', '--quiet', '-m', 'loop l2 iteration 1']);
    const committed = await head(checkout.worktree);
    expect(await ws.checkpoint('l2', checkout.worktree, 1, checkout.head, 'loop l2 iteration 1')).toBe(committed);
  });

  it('makes an empty checkpoint for an iteration that changed nothing, so each iteration has its commit', async () => {
    const ws = loopWorkspace();
    const checkout = await ws.prepare('l3', source, 'con');
    const cp = await ws.checkpoint('l3', checkout.worktree, 1, checkout.head, 'loop l3 iteration 1');
    expect(cp).not.toBe(checkout.head);
    expect(await ws.diff(checkout.worktree, checkout.head, cp)).toEqual({ lines: 0, files: [] });
  });

  it('reverts the worktree and its branch to the last good checkpoint, untracked files too', async () => {
    const ws = loopWorkspace();
    const checkout = await ws.prepare('l4', source, 'con');
    await writeFile(join(checkout.worktree, 'big.txt'), 'x\n'.repeat(50));
    const cp = await ws.checkpoint('l4', checkout.worktree, 1, checkout.head, 'loop l4 iteration 1');
    await writeFile(join(checkout.worktree, 'stray.txt'), 'left by the check\n');
    await ws.revertTo(checkout.worktree, checkout.head);
    expect(await head(checkout.worktree)).toBe(checkout.head);
    expect((await git(checkout.worktree, ['status', '--porcelain'])).stdout).toBe('');
    expect((await git(checkout.worktree, ['show', `${cp}:big.txt`])).stdout).toBe('x\n'.repeat(50));
  });

  it('finds the stop file in the worktree or the local source directory', async () => {
    const ws = loopWorkspace();
    const checkout = await ws.prepare('l5', source, 'con');
    expect(await ws.stopFilePresent(checkout.worktree, source, '.auto/stop')).toBe(false);
    await mkdir(join(source, '.auto'));
    await writeFile(join(source, '.auto', 'stop'), '');
    expect(await ws.stopFilePresent(checkout.worktree, source, '.auto/stop')).toBe(true);
  });
});
