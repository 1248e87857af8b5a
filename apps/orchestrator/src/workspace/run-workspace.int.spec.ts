import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readlink, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, gitPaths } from './git';
import { RunWorkspace } from './run-workspace';

let base: string;
let source: string;

const EIGHT_LINES = 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n';

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'hs-ws-'));
  source = join(base, 'source');
  await mkdir(join(source, 'src'), { recursive: true });
  await mkdir(join(source, 'node_modules', 'junk'), { recursive: true });
  await writeFile(join(source, 'node_modules', 'junk', 'index.js'), 'junk\n');
  await writeFile(join(source, 'src', 'a.js'), EIGHT_LINES);
  await writeFile(join(source, 'README.md'), '# project\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const prepare = (from = source) => RunWorkspace.prepare({ runId: 'r1', source: from, root: join(base, 'runs') });
const read = (dir: string, file: string) => readFile(join(dir, file), 'utf8');
const edit = async (dir: string, file: string, from: string, to: string) => writeFile(join(dir, file), (await read(dir, file)).replace(from, to));
const subjects = async (dir: string, rev: string, ...options: string[]) => (await git(dir, ['log', '--format=%s', ...options, rev])).stdout.trim().split('\n');
const commitAll = async (dir: string, message: string) => {
  await git(dir, ['add', '--all']);
  await git(dir, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', message]);
};
/** git as a persona's own shell runs it on a machine with no git config at all. */
const bareGit = (cwd: string, args: string[]) =>
  promisify(execFile)('git', args, { cwd, env: { PATH: process.env.PATH, HOME: join(base, 'empty-home'), GIT_CONFIG_NOSYSTEM: '1' } }).then(
    () => 0,
    (e: { code: number }) => e.code,
  );

describe('preparing a run workspace', () => {
  it('makes a plain directory a git checkout on the run branch, on a Baseline commit, without node_modules', async () => {
    const ws = await prepare();
    expect(ws.dir).toBe(join(base, 'runs', 'r1', 'checkout'));
    expect((await git(ws.dir, ['branch', '--show-current'])).stdout.trim()).toBe('headspace/r1/main');
    expect(await subjects(ws.dir, 'HEAD')).toEqual(['Baseline']);
    expect((await gitPaths(ws.dir, ['ls-files'])).sort()).toEqual(['README.md', 'src/a.js']);
    expect(await gitPaths(ws.dir, ['status', '--porcelain=v1', '--ignored'])).toEqual([]);
    expect((await git(source, ['rev-parse', '--git-dir'], { allowFailure: true })).code).not.toBe(0);
  });

  it('copies a directory inside a git repository rather than cloning the repository', async () => {
    await git(source, ['init', '--quiet']);
    await commitAll(source, 'outer history');
    const ws = await prepare(join(source, 'src'));
    expect(await subjects(ws.dir, 'HEAD')).toEqual(['Baseline']);
    expect(await gitPaths(ws.dir, ['ls-files'])).toEqual(['a.js']);
  });

  it('keeps relative symlinks pointing inside the checkout, and never copies the workspaces into themselves', async () => {
    await symlink('README.md', join(source, 'LINK.md'));
    const ws = await RunWorkspace.prepare({ runId: 'r1', source, root: join(source, 'runs-inside') });
    expect(await readlink(join(ws.dir, 'LINK.md'))).toBe('README.md');
    expect((await gitPaths(ws.dir, ['ls-files'])).sort()).toEqual(['LINK.md', 'README.md', 'src/a.js']);
  });

  it('clones a git repository keeping its history, and the result can be fetched back into it', async () => {
    await git(source, ['init', '--quiet']);
    await writeFile(join(source, '.gitignore'), 'node_modules\n');
    await commitAll(source, 'first');
    const ws = await prepare();
    expect(await subjects(ws.dir, 'HEAD')).toEqual(['first']);
    await writeFile(join(await ws.worktreeFor('con'), 'new.txt'), 'new\n');
    await ws.mergeTask('con', { id: 'T1', subject: 'add new' });

    await git(source, ['fetch', '--quiet', ws.dir, `${ws.branch}:${ws.branch}`]);
    expect((await subjects(source, ws.branch)).sort()).toEqual(['Merge T1 (con): add new', 'T1: add new', 'first']);
    expect(await gitPaths(source, ['status', '--porcelain=v1'])).toEqual([]);
  });

  it('preparing again reopens the checkout as it is, even after merges', async () => {
    const first = await prepare();
    await writeFile(join(await first.worktreeFor('con'), 'c.txt'), 'c\n');
    await first.mergeTask('con', { id: 'T1', subject: 'c' });
    await writeFile(join(source, 'README.md'), '# changed at the source\n');
    const second = await prepare();
    expect(second.dir).toBe(first.dir);
    expect(await second.head()).toBe(await first.head());
    expect(await read(second.dir, 'README.md')).toBe('# project\n');
  });

  it('recovers from a preparation cut off half way', async () => {
    await mkdir(join(base, 'runs', 'r1', `checkout.${process.pid}.tmp`, '.git'), { recursive: true });
    const ws = await prepare();
    expect(await subjects(ws.dir, 'HEAD')).toEqual(['Baseline']);
  });

  it('refuses a source that is missing or not a directory, naming the field', async () => {
    await expect(RunWorkspace.prepare({ runId: 'r2', source: join(base, 'nope'), root: join(base, 'runs') })).rejects.toMatchObject({ code: 'RUN.SOURCE_NOT_FOUND', field: 'source' });
    await expect(RunWorkspace.prepare({ runId: 'r2', source: join(source, 'README.md'), root: join(base, 'runs') })).rejects.toMatchObject({ code: 'RUN.SOURCE_NOT_FOUND', field: 'source' });
  });

  it('refuses run ids and personas that cannot name a branch and a directory', async () => {
    await expect(RunWorkspace.prepare({ runId: '../r1', source, root: join(base, 'runs') })).rejects.toMatchObject({ code: 'WORKSPACE.NAME_INVALID', field: 'runId' });
    await expect((await prepare()).worktreeFor('../con')).rejects.toMatchObject({ code: 'WORKSPACE.NAME_INVALID', field: 'persona' });
  });
});

describe('persona worktrees and merges', () => {
  it('two personas working in parallel on different files both merge, each in a merge commit naming the task', async () => {
    const ws = await prepare();
    const [con, al] = await Promise.all([ws.worktreeFor('con'), ws.worktreeFor('al')]);
    expect(con).toBe(join(ws.root, 'worktrees', 'con'));
    expect((await git(con, ['branch', '--show-current'])).stdout.trim()).toBe('headspace/r1/con');
    await mkdir(join(con, 'src', 'deep'), { recursive: true });
    await writeFile(join(con, 'src', 'deep', 'b.js'), 'b\n');
    await edit(al, 'README.md', '# project', '# project\n\nUsage');
    const [conMerge, alMerge] = await Promise.all([ws.mergeTask('con', { id: 'T1', subject: 'add b' }), ws.mergeTask('al', { id: 'T2', subject: 'docs' })]);
    expect(conMerge).toMatchObject({ status: 'merged', files: ['src/deep/b.js'] });
    expect(alMerge).toMatchObject({ status: 'merged', files: ['README.md'] });
    expect(await read(ws.dir, 'src/deep/b.js')).toBe('b\n');
    expect(await read(ws.dir, 'README.md')).toContain('Usage');
    expect(await subjects(ws.dir, 'HEAD', '--merges')).toEqual(['Merge T2 (al): docs', 'Merge T1 (con): add b']);
    expect((await git(ws.dir, ['log', '-1', '--format=%an', 'headspace/r1/con'])).stdout.trim()).toBe('con');
  });

  it('the same file changed in different regions merges both changes', async () => {
    const ws = await prepare();
    const [con, may] = [await ws.worktreeFor('con'), await ws.worktreeFor('may')];
    await edit(con, 'src/a.js', 'line 1', 'line one');
    await edit(may, 'src/a.js', 'line 8', 'line eight');
    await ws.mergeTask('con', { id: 'T1', subject: 'top' });
    expect(await ws.mergeTask('may', { id: 'T2', subject: 'bottom' })).toMatchObject({ status: 'merged', files: ['src/a.js'] });
    expect(await read(ws.dir, 'src/a.js')).toBe(EIGHT_LINES.replace('line 1', 'line one').replace('line 8', 'line eight'));
  });

  it('the same lines changed by two personas is a reported conflict: the run branch is untouched and nothing is overwritten', async () => {
    const ws = await prepare();
    const [con, may] = [await ws.worktreeFor('con'), await ws.worktreeFor('may')];
    await edit(con, 'src/a.js', 'line 4', 'line four (con)');
    await edit(may, 'src/a.js', 'line 4', 'line FOUR (may)');
    await ws.mergeTask('con', { id: 'T1', subject: 'con' });
    const headBefore = await ws.head();
    expect(await ws.mergeTask('may', { id: 'T2', subject: 'may' })).toEqual({ status: 'conflict', files: ['src/a.js'] });
    expect(await ws.head()).toBe(headBefore);
    expect(await gitPaths(ws.dir, ['status', '--porcelain=v1'])).toEqual([]);
    expect(await read(ws.dir, 'src/a.js')).toContain('line four (con)');
    expect((await git(ws.dir, ['show', 'headspace/r1/may:src/a.js'])).stdout).toContain('line FOUR (may)');
    expect(await read(await ws.worktreeFor('may'), 'src/a.js')).toContain('line FOUR (may)');
  });

  it('a conflict is resolved as a task: the persona merges the run branch, conflict markers are refused, the resolution merges (git add or not)', async () => {
    const ws = await prepare();
    const [con, may] = [await ws.worktreeFor('con'), await ws.worktreeFor('may')];
    await edit(con, 'src/a.js', 'line 4', 'line four (con)');
    await edit(may, 'src/a.js', 'line 4', 'line FOUR (may)');
    await ws.mergeTask('con', { id: 'T1', subject: 'con' });
    await ws.mergeTask('may', { id: 'T2', subject: 'may' });
    const headBefore = await ws.head();

    expect(await bareGit(may, ['merge', ws.branch])).toBe(1);
    await expect(ws.mergeTask('may', { id: 'C-T2', subject: 'resolve' })).rejects.toMatchObject({ code: 'WORKSPACE.UNRESOLVED_CONFLICT', details: { files: ['src/a.js'] } });
    expect(await ws.head()).toBe(headBefore);

    await writeFile(join(may, 'src', 'a.js'), EIGHT_LINES.replace('line 4', 'line four (con) and FOUR (may)'));
    expect(await ws.mergeTask('may', { id: 'C-T2', subject: 'resolve' })).toMatchObject({ status: 'merged' });
    expect(await read(ws.dir, 'src/a.js')).toContain('line four (con) and FOUR (may)');
  });

  it('a persona’s own git commits in its worktree on a machine with no git identity', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await writeFile(join(con, 'c.txt'), 'c\n');
    expect(await bareGit(con, ['add', 'c.txt'])).toBe(0);
    expect(await bareGit(con, ['commit', '--quiet', '-m', 'T1: by hand'])).toBe(0);
    expect(await ws.mergeTask('con', { id: 'T1', subject: 'c' })).toMatchObject({ status: 'merged', files: ['c.txt'] });
  });

  it('merging the same task twice does nothing the second time', async () => {
    const ws = await prepare();
    await writeFile(join(await ws.worktreeFor('con'), 'c.txt'), 'c\n');
    await ws.mergeTask('con', { id: 'T1', subject: 'c' });
    const head = await ws.head();
    expect(await ws.mergeTask('con', { id: 'T1', subject: 'c' })).toEqual({ status: 'nothing-to-merge', files: [] });
    expect(await ws.head()).toBe(head);
    expect(await ws.mergeTask('nobody', { id: 'T9', subject: 'never started' })).toEqual({ status: 'nothing-to-merge', files: [] });
  });

  it('committing stages new and changed files alike, and a clean worktree makes no commit', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await mkdir(join(con, 'docs', 'notes'), { recursive: true });
    await writeFile(join(con, 'docs', 'notes', 'n.md'), 'n\n');
    await edit(con, 'README.md', 'project', 'Project');
    const done = await ws.commitWorktree('con', 'T1: notes');
    expect(done.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(done.files.sort()).toEqual(['README.md', 'docs/notes/n.md']);
    expect(await ws.commitWorktree('con', 'T1: again')).toEqual({ files: [] });
    expect(await subjects(con, 'HEAD')).toEqual(['T1: notes', 'Baseline']);
  });

  it('a worktree is brought up to the run branch after others merge, unless it holds unmerged work', async () => {
    const ws = await prepare();
    const [con, al, may] = [await ws.worktreeFor('con'), await ws.worktreeFor('al'), await ws.worktreeFor('may')];
    await writeFile(join(may, 'mine.txt'), 'may\n');
    await ws.commitWorktree('may', 'T3: unmerged');
    await writeFile(join(con, 'from-con.txt'), 'x\n');
    await ws.mergeTask('con', { id: 'T1', subject: 'x' });
    await ws.worktreeFor('al');
    await ws.worktreeFor('may');
    expect(await read(al, 'from-con.txt')).toBe('x\n');
    expect((await git(al, ['rev-parse', 'HEAD'])).stdout.trim()).toBe(await ws.head());
    expect(await subjects(may, 'HEAD')).toEqual(['T3: unmerged', 'Baseline']);
  });

  it('lists the files changed on the run branch since a commit', async () => {
    const ws = await prepare();
    const base = await ws.head();
    await writeFile(join(await ws.worktreeFor('con'), 'c.txt'), 'c\n');
    await edit(await ws.worktreeFor('al'), 'README.md', 'project', 'Project');
    await ws.mergeTask('con', { id: 'T1', subject: 'c' });
    await ws.mergeTask('al', { id: 'T2', subject: 'readme' });
    expect((await ws.changedFilesSince(base)).sort()).toEqual(['README.md', 'c.txt']);
  });
});

describe('after a crash', () => {
  it('a worktree left with uncommitted changes is kept as it is when reopened, even after the run branch moved', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await writeFile(join(con, 'wip.txt'), 'half done\n');
    await edit(con, 'README.md', 'project', 'half-renamed project');
    await writeFile(join(await ws.worktreeFor('al'), 'al.txt'), 'al\n');
    await ws.mergeTask('al', { id: 'T1', subject: 'al' });

    const again = await (await prepare()).worktreeFor('con');
    expect(again).toBe(con);
    expect(await read(con, 'wip.txt')).toBe('half done\n');
    expect(await read(con, 'README.md')).toBe('# half-renamed project\n');
    expect(await subjects(con, 'HEAD')).toEqual(['Baseline']);
  });

  it('a worktree directory that went missing is made again from its branch, committed work included', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await writeFile(join(con, 'kept.txt'), 'kept\n');
    await ws.commitWorktree('con', 'T1: kept');
    await rm(con, { recursive: true, force: true });
    expect(await (await prepare()).worktreeFor('con')).toBe(con);
    expect(await read(con, 'kept.txt')).toBe('kept\n');
  });

  it('a worktree whose creation was cut off is made again, and its missing files are not committed as deletions', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await git(ws.dir, ['worktree', 'lock', '--reason', 'initializing', con]);
    await unlink(join(con, 'README.md'));
    await ws.worktreeFor('con');
    expect(await read(con, 'README.md')).toBe('# project\n');
    expect(await ws.commitWorktree('con', 'T1: nothing')).toEqual({ files: [] });
  });

  it('a merge cut off in the integration checkout is cleared before the next merge', async () => {
    const ws = await prepare();
    const [con, may] = [await ws.worktreeFor('con'), await ws.worktreeFor('may')];
    await edit(con, 'src/a.js', 'line 4', 'line four (con)');
    await edit(may, 'src/a.js', 'line 4', 'line FOUR (may)');
    await ws.mergeTask('con', { id: 'T1', subject: 'con' });
    await ws.commitWorktree('may', 'T2: may');
    await git(ws.dir, ['merge', 'headspace/r1/may'], { allowFailure: true }); // the crash left this half done
    await writeFile(join(await ws.worktreeFor('al'), 'al.txt'), 'al\n');
    expect(await ws.mergeTask('al', { id: 'T3', subject: 'al' })).toMatchObject({ status: 'merged', files: ['al.txt'] });
    expect(await read(ws.dir, 'src/a.js')).toContain('line four (con)');
  });

  it('refuses to merge into an integration checkout someone edited, leaving their edit alone', async () => {
    const ws = await prepare();
    await writeFile(join(await ws.worktreeFor('con'), 'c.txt'), 'c\n');
    await edit(ws.dir, 'README.md', 'project', 'hand-edited project');
    await expect(ws.mergeTask('con', { id: 'T1', subject: 'c' })).rejects.toMatchObject({ code: 'WORKSPACE.INTEGRATION_DIRTY', details: { files: ['README.md'] } });
    expect(await read(ws.dir, 'README.md')).toBe('# hand-edited project\n');
  });

  it('refuses to commit a worktree switched off its branch, whose work would otherwise never merge', async () => {
    const ws = await prepare();
    const con = await ws.worktreeFor('con');
    await git(con, ['switch', '--quiet', '--detach']);
    await writeFile(join(con, 'c.txt'), 'c\n');
    await expect(ws.commitWorktree('con', 'T1: c')).rejects.toMatchObject({ code: 'WORKSPACE.WORKTREE_OFF_BRANCH' });
    expect(await read(con, 'c.txt')).toBe('c\n');
  });
});

describe('committing the run’s own files (the team memory at run end)', () => {
  const write = (text: string) => async (dir: string) => {
    await mkdir(join(dir, 'memory', 'retros'), { recursive: true });
    await writeFile(join(dir, 'memory', 'retros', 'r1.md'), text);
  };

  it('commits what `write` puts under the paths on the run branch, as the team, and only once per message', async () => {
    const ws = await prepare();
    const first = await ws.commitFiles('Team memory of run r1', ['memory'], write('# Retro\n'));
    expect(first.files).toEqual(['memory/retros/r1.md']);
    expect(first.commit).toBe(await ws.head());
    expect((await git(ws.dir, ['log', '-1', '--format=%an|%s'])).stdout.trim()).toBe('headspace|Team memory of run r1');
    // Repeated (a pass after a crash): the head is that commit already, nothing is written or committed.
    const again = await ws.commitFiles('Team memory of run r1', ['memory'], write('# Another retro\n'));
    expect(again).toEqual({ files: [] });
    expect(await read(ws.dir, 'memory/retros/r1.md')).toBe('# Retro\n');
    expect(await subjects(ws.dir, 'HEAD')).toEqual(['Team memory of run r1', 'Baseline']);
  });

  it('puts back what a crash left half-written under the paths before writing, and leaves a clean checkout', async () => {
    const ws = await prepare();
    await mkdir(join(ws.dir, 'memory', 'agents', 'con'), { recursive: true });
    await writeFile(join(ws.dir, 'memory', 'agents', 'con', 'learnings.md'), 'half-written');
    const done = await ws.commitFiles('Team memory of run r1', ['memory'], write('# Retro\n'));
    expect(done.files).toEqual(['memory/retros/r1.md']);
    expect(await gitPaths(ws.dir, ['status', '--porcelain=v1'])).toEqual([]);
    expect(await gitPaths(ws.dir, ['ls-files', 'memory'])).toEqual(['memory/retros/r1.md']);
  });
});
