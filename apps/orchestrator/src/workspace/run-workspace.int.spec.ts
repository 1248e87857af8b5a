import { mkdtemp, readFile, writeFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from './git';
import { RunWorkspace } from './run-workspace';

let base: string;
let source: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'hs-ws-'));
  source = join(base, 'source');
  await mkdir(join(source, 'src'), { recursive: true });
  await mkdir(join(source, 'node_modules', 'junk'), { recursive: true });
  await writeFile(join(source, 'src', 'a.js'), 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n');
  await writeFile(join(source, 'README.md'), '# project\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const prepare = () => RunWorkspace.prepare({ runId: 'r1', source, root: join(base, 'runs') });
const edit = async (dir: string, file: string, from: string, to: string) => {
  const path = join(dir, file);
  await writeFile(path, (await readFile(path, 'utf8')).replace(from, to));
};
const log = async (dir: string, branch: string) => (await git(dir, ['log', '--format=%s', branch])).stdout.trim().split('\n');

describe('run workspace', () => {
  it('makes a git checkout of a plain directory on the run branch, without node_modules', async () => {
    const ws = await prepare();
    expect((await git(ws.dir, ['branch', '--show-current'])).stdout.trim()).toBe('headspace/r1/main');
    expect(await log(ws.dir, 'HEAD')).toEqual(['Baseline: source']);
    expect((await git(ws.dir, ['ls-files'])).stdout.split('\n').filter(Boolean).sort()).toEqual(['README.md', 'src/a.js']);
  });

  it('clones a git repository keeping its history', async () => {
    await git(source, ['init', '--quiet']);
    await git(source, ['add', '--all']);
    await git(source, ['commit', '--quiet', '-m', 'first']);
    const ws = await prepare();
    expect(await log(ws.dir, 'HEAD')).toContain('first');
  });

  it('preparing twice reopens the same checkout', async () => {
    const first = await prepare();
    const head = await first.head();
    const second = await prepare();
    expect(second.dir).toBe(first.dir);
    expect(await second.head()).toBe(head);
  });

  it('refuses a source that does not exist, naming the field', async () => {
    await expect(RunWorkspace.prepare({ runId: 'r2', source: join(base, 'nope'), root: join(base, 'runs') })).rejects.toMatchObject({ code: 'RUN.SOURCE_NOT_FOUND', field: 'source' });
  });

  it('two personas editing different files both merge', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    const al = await ws.worktreeFor('al');
    await writeFile(join(con, 'src', 'b.js'), 'b\n');
    await edit(al, 'README.md', '# project', '# project\n\nUsage');
    expect(await ws.mergeTask('con', { id: 'T1', subject: 'add b' })).toMatchObject({ status: 'merged', files: ['src/b.js'] });
    expect(await ws.mergeTask('al', { id: 'T2', subject: 'docs' })).toMatchObject({ status: 'merged', files: ['README.md'] });
    expect(await readFile(join(ws.dir, 'src', 'b.js'), 'utf8')).toBe('b\n');
    expect(await readFile(join(ws.dir, 'README.md'), 'utf8')).toContain('Usage');
    expect((await log(ws.dir, 'HEAD')).filter((s) => s.startsWith('Merge'))).toEqual(['Merge T2 (al): docs', 'Merge T1 (con): add b']);
  });

  it('the same file changed in different regions merges both changes', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    const may = await ws.worktreeFor('may');
    await edit(con, 'src/a.js', 'line 1', 'line one');
    await edit(may, 'src/a.js', 'line 8', 'line eight');
    await ws.mergeTask('con', { id: 'T1', subject: 'top' });
    expect(await ws.mergeTask('may', { id: 'T2', subject: 'bottom' })).toMatchObject({ status: 'merged' });
    const merged = await readFile(join(ws.dir, 'src', 'a.js'), 'utf8');
    expect(merged).toContain('line one');
    expect(merged).toContain('line eight');
  });

  it('the same lines changed by two personas is a reported conflict, never a silent overwrite', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    const may = await ws.worktreeFor('may');
    await edit(con, 'src/a.js', 'line 4', 'line four (con)');
    await edit(may, 'src/a.js', 'line 4', 'line FOUR (may)');
    await ws.mergeTask('con', { id: 'T1', subject: 'con' });
    const headBefore = await ws.head();
    expect(await ws.mergeTask('may', { id: 'T2', subject: 'may' })).toEqual({ status: 'conflict', files: ['src/a.js'] });
    expect(await ws.head()).toBe(headBefore);
    expect((await git(ws.dir, ['status', '--porcelain'])).stdout).toBe('');
    expect(await readFile(join(ws.dir, 'src', 'a.js'), 'utf8')).toContain('line four (con)');
    // May's change is still on her branch, for the conflict task to bring in.
    expect((await git(ws.dir, ['show', 'headspace/r1/may:src/a.js'])).stdout).toContain('line FOUR (may)');
  });

  it('merging the same task twice does nothing the second time', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await writeFile(join(con, 'c.txt'), 'c\n');
    await ws.mergeTask('con', { id: 'T1', subject: 'c' });
    const head = await ws.head();
    expect(await ws.mergeTask('con', { id: 'T1', subject: 'c' })).toEqual({ status: 'nothing-to-merge', files: [] });
    expect(await ws.head()).toBe(head);
  });

  it('a persona’s worktree is brought up to the run branch after others merge', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    const al = await ws.worktreeFor('al');
    await writeFile(join(con, 'from-con.txt'), 'x\n');
    await ws.mergeTask('con', { id: 'T1', subject: 'x' });
    await ws.worktreeFor('al');
    expect(await readFile(join(al, 'from-con.txt'), 'utf8')).toBe('x\n');
  });

  it('a worktree with uncommitted work is kept as it is when reopened', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await writeFile(join(con, 'wip.txt'), 'half done\n');
    const again = await (await prepare()).worktreeFor('con');
    expect(await readFile(join(again, 'wip.txt'), 'utf8')).toBe('half done\n');
  });
});
