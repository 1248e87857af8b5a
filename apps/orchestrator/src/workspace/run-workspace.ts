import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { cp, mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { git, parsePorcelain } from './git';

export type MergeResult = { status: 'merged'; commit: string; files: string[] } | { status: 'conflict'; files: string[] } | { status: 'nothing-to-merge'; files: string[] };

const exists = (path: string) => stat(path).then(() => true, () => false);
const COPY_SKIP = new Set(['node_modules', '.git', '.headspace']);

/**
 * The git side of a run. `<root>/<runId>/checkout` is the integration checkout on branch
 * `headspace/<runId>`; each persona works in its own worktree `<root>/<runId>/worktrees/<persona>`
 * on branch `headspace/<runId>/<persona>`. A finished task is committed on the persona's branch and
 * merged into the integration branch with a merge commit naming the task, one at a time; a merge
 * that conflicts is aborted (both branches stay as they were) and reported, so the run turns it into
 * a task instead of letting one persona's change overwrite another's. The result of the run is the
 * integration branch in the checkout: `git -C <checkout> log headspace/<runId>/main`, or fetch it from
 * there into the source repository.
 *
 * Every operation is idempotent, so a reconciler that repeats one after a crash is safe.
 */
export class RunWorkspace {
  private constructor(
    readonly runId: string,
    readonly root: string,
    readonly dir: string,
    readonly branch: string,
  ) {}

  /** Makes (or reopens) the run's checkout from a git repository or a plain directory. */
  static async prepare(opts: { runId: string; source: string; root: string }): Promise<RunWorkspace> {
    const root = resolve(opts.root, opts.runId);
    const dir = join(root, 'checkout');
    const branch = `headspace/${opts.runId}/main`;
    const ws = new RunWorkspace(opts.runId, root, dir, branch);
    if (await exists(join(dir, '.git'))) return ws;
    const source = resolve(opts.source);
    if (!(await exists(source))) throw new HeadspaceError(ErrorCodes.runSourceNotFound, `Run source "${opts.source}" does not exist`, { field: 'source' });
    await mkdir(root, { recursive: true });
    const staging = join(root, `checkout.${process.pid}.tmp`);
    await rm(staging, { recursive: true, force: true });
    if (await isGitRoot(source)) {
      await git(root, ['clone', '--quiet', '--no-hardlinks', source, staging]);
    } else {
      await cp(source, staging, { recursive: true, filter: (src) => !COPY_SKIP.has(basename(src)) });
      await git(staging, ['init', '--quiet']);
      await git(staging, ['add', '--all']);
      await git(staging, ['commit', '--quiet', '--allow-empty', '-m', `Baseline: ${basename(source)}`]);
    }
    await git(staging, ['checkout', '--quiet', '-B', branch]);
    // Renaming the finished staging directory makes "prepared" all-or-nothing.
    await rename(staging, dir);
    return ws;
  }

  /** The persona's worktree, created on first use and brought up to the integration head while it holds no unmerged work. */
  async worktreeFor(persona: string): Promise<string> {
    const path = join(this.root, 'worktrees', persona);
    const personaBranch = this.personaBranch(persona);
    if (!(await exists(join(path, '.git')))) {
      await mkdir(join(this.root, 'worktrees'), { recursive: true });
      await git(this.dir, ['worktree', 'prune']);
      const branchExists = (await git(this.dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${personaBranch}`], { allowFailure: true })).code === 0;
      await git(this.dir, ['worktree', 'add', '--quiet', ...(branchExists ? [path, personaBranch] : ['-b', personaBranch, path, this.branch])]);
      return path;
    }
    const dirty = parsePorcelain((await git(path, ['status', '--porcelain=v1', '-z'])).stdout).length > 0;
    if (dirty) return path; // work in progress (e.g. a session cut off by a crash): keep it
    const unmerged = (await git(this.dir, ['rev-list', '--count', `${this.branch}..${personaBranch}`])).stdout.trim() !== '0';
    if (!unmerged) await git(path, ['merge', '--quiet', '--ff-only', this.branch]);
    return path;
  }

  /** Commits everything in the persona's worktree (new files too). */
  async commitWorktree(persona: string, message: string): Promise<{ commit?: string; files: string[] }> {
    const path = join(this.root, 'worktrees', persona);
    if (!(await exists(path))) return { files: [] };
    const files = parsePorcelain((await git(path, ['status', '--porcelain=v1', '-z', '--untracked-files=all'])).stdout).map((e) => e.path);
    if (files.length === 0) return { files };
    await git(path, ['add', '--all']);
    await git(path, ['commit', '--quiet', '-m', message]);
    return { commit: (await git(path, ['rev-parse', 'HEAD'])).stdout.trim(), files };
  }

  /** Merges the persona's branch into the integration branch; a conflict is aborted and reported. */
  async mergeTask(persona: string, task: { id: string; subject: string }): Promise<MergeResult> {
    const personaBranch = this.personaBranch(persona);
    await this.commitWorktree(persona, `${task.id}: ${task.subject}`);
    const branchExists = (await git(this.dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${personaBranch}`], { allowFailure: true })).code === 0;
    if (!branchExists) return { status: 'nothing-to-merge', files: [] };
    const ahead = (await git(this.dir, ['rev-list', '--count', `${this.branch}..${personaBranch}`])).stdout.trim();
    if (ahead === '0') return { status: 'nothing-to-merge', files: [] };
    const files = (await git(this.dir, ['diff', '--name-only', `${this.branch}...${personaBranch}`])).stdout.split('\n').filter(Boolean);
    const merge = await git(this.dir, ['merge', '--no-ff', '--quiet', '-m', `Merge ${task.id} (${persona}): ${task.subject}`, personaBranch], { allowFailure: true });
    if (merge.code !== 0) {
      const conflicted = (await git(this.dir, ['diff', '--name-only', '--diff-filter=U'])).stdout.split('\n').filter(Boolean);
      await git(this.dir, ['merge', '--abort'], { allowFailure: true });
      return { status: 'conflict', files: conflicted.length ? conflicted : files };
    }
    return { status: 'merged', commit: await this.head(), files };
  }

  /** Sibling of the integration branch (`headspace/<runId>/main`), so the ref names cannot clash. */
  personaBranch(persona: string): string {
    return `headspace/${this.runId}/${persona === 'main' ? 'main-persona' : persona}`;
  }

  async head(): Promise<string> {
    return (await git(this.dir, ['rev-parse', 'HEAD'])).stdout.trim();
  }

  async changedFilesSince(commit: string): Promise<string[]> {
    return (await git(this.dir, ['diff', '--name-only', commit, 'HEAD'])).stdout.split('\n').filter(Boolean);
  }
}

async function isGitRoot(path: string): Promise<boolean> {
  if (!(await exists(join(path, '.git')))) return false;
  const top = await git(path, ['rev-parse', '--show-toplevel'], { allowFailure: true });
  return top.code === 0 && resolve(top.stdout.trim()) === resolve(path);
}
