import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { mkdir, readFile, readdir, realpath, rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GitError, type StatusEntry, git, gitPaths, gitStatus, hasConflictMarkers, isUnmerged } from './git';
import { checkPersona, checkRunId, integrationBranch, personaBranch } from './run-branches';
import { configureIdentity, createCheckout, pathExists } from './run-checkout';

export type MergeResult = { status: 'merged'; commit: string; files: string[] } | { status: 'conflict'; files: string[] } | { status: 'nothing-to-merge'; files: string[] };

/**
 * The git side of a run.
 *
 * Branching model: `<root>/<runId>/checkout` is the integration checkout, on branch
 * `headspace/<runId>/main` (a sibling of the persona branches: git cannot have both
 * `headspace/<runId>` and `headspace/<runId>/<persona>`). Each persona works in its own worktree
 * `<root>/<runId>/worktrees/<persona>` on branch `headspace/<runId>/<persona>`, started from the
 * integration head. A finished task is committed on the persona's branch (authored by the persona)
 * and merged into the integration branch with a `--no-ff` merge commit naming the task, one merge at
 * a time. A merge that conflicts is aborted — the integration branch and the persona's branch stay as
 * they were — and reported with the conflicted files, so the run makes it a task for the persona
 * (merge the integration branch into theirs, resolve, finish the task again) instead of letting one
 * change overwrite another. A worktree with no unmerged work is fast-forwarded to the integration
 * head whenever it is asked for; one with uncommitted or unmerged work is never touched.
 *
 * Handing back the result: the result of a run is the branch `headspace/<runId>/main` in the
 * integration checkout (`dir`). From a git source the checkout is a clone whose `origin` is that
 * source, so `git -C <source> fetch <dir> headspace/<runId>/main` (or `git -C <dir> push origin
 * headspace/<runId>/main`) brings it home with the source's history below it; from a plain
 * directory it sits on a "Baseline" commit of the copy. The source itself is never written to.
 *
 * Every operation is idempotent, so a reconciler that repeats one after a crash is safe; operations
 * on one RunWorkspace run one at a time (git's index and refs are not for concurrent writers).
 */
export class RunWorkspace {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly runId: string,
    /** `<root>/<runId>`: the checkout and the worktrees. */
    readonly root: string,
    /** The integration checkout. */
    readonly dir: string,
    /** The integration branch, `headspace/<runId>/main`. */
    readonly branch: string,
  ) {}

  /** Makes the run's checkout from a git repository or a plain directory, or reopens it when it exists. */
  static async prepare(opts: { runId: string; source: string; root: string; admitSource?: (source: string) => Promise<string> }): Promise<RunWorkspace> {
    const runRoot = resolve(opts.root, checkRunId(opts.runId));
    const branch = integrationBranch(opts.runId);
    if (await pathExists(join(runRoot, 'checkout', '.git'))) await configureIdentity(join(runRoot, 'checkout'));
    else {
      // `admitSource` (the run source policy) runs only when the source is about to be read.
      const source = opts.admitSource ? await opts.admitSource(opts.source) : opts.source;
      await createCheckout({ source, runRoot, dir: join(runRoot, 'checkout'), branch });
    }
    // The real path: git reports worktrees by it, and they are matched by path.
    const root = await realpath(runRoot);
    return new RunWorkspace(opts.runId, root, join(root, 'checkout'), branch);
  }

  /** `headspace/<runId>/<persona>`. */
  personaBranch(persona: string): string {
    return personaBranch(this.runId, persona);
  }

  /** The persona's worktree: made on first use (again from its branch if it went missing), brought up to the integration head while it holds no unmerged work. */
  worktreeFor(persona: string): Promise<string> {
    return this.serial(async () => {
      const path = this.worktreePath(persona);
      const branch = this.personaBranch(persona);
      await this.ensureWorktree(path, branch);
      const status = await gitStatus(path);
      if (status.entries.length > 0 || status.branch !== branch) return path; // work in progress (a session cut off by a crash, say): kept as it is
      // Fast-forward only: level with or ahead of the integration branch it is a no-op, diverged from it (unmerged work) git refuses and leaves it be.
      const ff = await git(path, ['merge', '--quiet', '--ff-only', this.branch], { allowFailure: true });
      if (ff.code !== 0 && !/Not possible to fast-forward/i.test(ff.stderr)) throw new GitError(['merge', '--ff-only', this.branch], ff.code, ff.stderr);
      return path;
    });
  }

  /** Commits everything in the persona's worktree, new files included; a clean worktree makes no commit. */
  commitWorktree(persona: string, message: string): Promise<{ commit?: string; files: string[] }> {
    return this.serial(() => this.commit(persona, message));
  }

  /**
   * Merges the persona's branch (its worktree committed first) into the integration branch. A
   * conflict is aborted and reported; a branch with nothing the integration branch lacks, such as
   * one merged already, is `nothing-to-merge`.
   */
  mergeTask(persona: string, task: { id: string; subject: string }): Promise<MergeResult> {
    return this.serial(async () => {
      const branch = this.personaBranch(persona);
      await this.commit(persona, `${task.id}: ${task.subject}`);
      // Fails only when the branch does not exist (the persona never worked): nothing to merge either.
      const ahead = await git(this.dir, ['rev-list', '--count', `refs/heads/${this.branch}..refs/heads/${branch}`], { allowFailure: true });
      if (ahead.code !== 0) return { status: 'nothing-to-merge', files: [] };
      await this.readyToMerge();
      if (Number(ahead.stdout.trim()) === 0) return { status: 'nothing-to-merge', files: [] };
      const files = await gitPaths(this.dir, ['diff', '--name-only', `${this.branch}...${branch}`]);
      const args = ['merge', '--no-ff', '--quiet', '-m', `Merge ${task.id} (${persona}): ${task.subject}`, branch];
      const merge = await git(this.dir, args, { allowFailure: true });
      if (merge.code === 0) return { status: 'merged', commit: await this.head(), files };
      const conflicted = await gitPaths(this.dir, ['diff', '--name-only', '--diff-filter=U']);
      await git(this.dir, ['merge', '--abort'], { allowFailure: true });
      if (conflicted.length === 0) throw new GitError(args, merge.code, merge.stderr);
      return { status: 'conflict', files: conflicted };
    });
  }

  /**
   * Writes files under `paths` of the integration checkout (`write` gets its directory) and commits
   * them on the run branch as the team (the run's memory files at its end). Once: a branch whose
   * head commit is already `message` is left as it is, so a repeat after a crash writes nothing
   * twice; what a crash left half-written under `paths` is put back to the head first.
   */
  commitFiles(message: string, paths: string[], write: (dir: string) => Promise<void>): Promise<{ commit?: string; files: string[] }> {
    return this.serial(async () => {
      const last = (await git(this.dir, ['log', '-1', '--format=%s', `refs/heads/${this.branch}`])).stdout.trim();
      if (last === message) return { files: [] };
      await this.readyToMerge(paths);
      await git(this.dir, ['checkout', '--quiet', 'HEAD', '--', ...paths], { allowFailure: true }); // not in the head: nothing to put back
      await git(this.dir, ['clean', '-fdq', '--', ...paths]);
      await write(this.dir);
      await git(this.dir, ['add', '--all', '--', ...paths]);
      const files = await gitPaths(this.dir, ['diff', '--cached', '--name-only']);
      if (files.length === 0) return { files: [] };
      await git(this.dir, ['commit', '--quiet', '--author', 'headspace <headspace@headspace.localhost>', '-m', message]);
      return { commit: await this.head(), files };
    });
  }

  /** The commit at the tip of the integration branch. */
  async head(): Promise<string> {
    return (await git(this.dir, ['rev-parse', `refs/heads/${this.branch}`])).stdout.trim();
  }

  /** Files that differ between `commit` and the integration head. */
  changedFilesSince(commit: string): Promise<string[]> {
    return gitPaths(this.dir, ['diff', '--name-only', commit, `refs/heads/${this.branch}`]);
  }

  private async commit(persona: string, message: string): Promise<{ commit?: string; files: string[] }> {
    const path = this.worktreePath(persona);
    const admin = await worktreeAdminDir(path);
    if (!admin) return { files: [] };
    const branch = this.personaBranch(persona);
    const { branch: current, entries } = await gitStatus(path, { untrackedAll: true });
    if (current !== branch) {
      throw new HeadspaceError(ErrorCodes.workspaceWorktreeOffBranch, `The worktree of ${persona} is not on ${branch}; its work would not be merged`, { details: { persona, branch } });
    }
    const conflicted = await this.unresolved(path, entries);
    if (conflicted.length > 0) {
      throw new HeadspaceError(ErrorCodes.workspaceUnresolvedConflict, `${persona} has unresolved conflicts in ${conflicted.join(', ')}`, { details: { persona, files: conflicted } });
    }
    // A merge of the integration branch the persona resolved to their own tree still needs its commit.
    const concludingMerge = await pathExists(join(admin, 'MERGE_HEAD'));
    if (entries.length === 0 && !concludingMerge) return { files: [] };
    await git(path, ['add', '--all']);
    await git(path, ['commit', '--quiet', '--author', `${persona} <${persona}@headspace.localhost>`, '-m', message]);
    return { commit: (await git(path, ['rev-parse', 'HEAD'])).stdout.trim(), files: entries.map((e) => e.path) };
  }

  /**
   * Conflicted files still unresolved. A persona who edited both sides together but forgot `git add`
   * has resolved the file all the same; one deleted on one side must be decided with `git add`/`rm`.
   */
  private async unresolved(path: string, entries: StatusEntry[]): Promise<string[]> {
    const files: string[] = [];
    for (const { status, path: file } of entries.filter((e) => isUnmerged(e.status))) {
      const bothEdited = status === 'UU' || status === 'AA';
      const text = await readFile(join(path, file), 'utf8').catch(() => ''); // deleted: a decision too
      if (!bothEdited || hasConflictMarkers(text)) files.push(file);
    }
    return files;
  }

  private async ensureWorktree(path: string, branch: string): Promise<void> {
    const admin = await worktreeAdminDir(path);
    if (admin && !(await lockedInitializing(admin))) return;
    if (admin || (await this.halfMade(path))) await git(this.dir, ['worktree', 'remove', '--force', '--force', path]);
    if (await pathExists(path)) {
      // Without a .git, nothing git wrote is in there: whatever is, is not ours to delete.
      if ((await readdir(path)).length > 0) throw new HeadspaceError(ErrorCodes.workspaceWorktreeBroken, `${path} exists but is not a worktree`, { details: { path } });
      await rmdir(path);
    }
    await mkdir(join(this.root, 'worktrees'), { recursive: true });
    await git(this.dir, ['worktree', 'prune']);
    const exists = (await git(this.dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { allowFailure: true })).code === 0;
    await git(this.dir, ['worktree', 'add', '--quiet', ...(exists ? [path, branch] : ['-b', branch, path, this.branch])]);
  }

  /** A worktree whose `git worktree add` was cut off: git leaves it locked "initializing" until the checkout is complete. */
  private async halfMade(path: string): Promise<boolean> {
    const list = (await git(this.dir, ['worktree', 'list', '--porcelain'])).stdout.split('\n\n');
    return list.some((entry) => entry.split('\n').includes(`worktree ${path}`) && entry.split('\n').includes('locked initializing'));
  }

  /** Clears a merge a crash cut off; anything else out of place in the integration checkout is a person's doing and is left to them. */
  private async readyToMerge(ours: string[] = []): Promise<void> {
    if (await pathExists(join(this.dir, '.git', 'MERGE_HEAD'))) await git(this.dir, ['merge', '--abort']);
    const { branch: current, entries } = await gitStatus(this.dir);
    // `ours`: paths the caller writes itself (left half-written by a crash, they are put back).
    const dirty = entries.map((e) => e.path).filter((path) => !ours.some((p) => path === p || path.startsWith(`${p}/`)));
    if (current !== this.branch || dirty.length > 0) {
      throw new HeadspaceError(ErrorCodes.workspaceIntegrationDirty, `The integration checkout ${this.dir} is not clean on ${this.branch}`, { details: { branch: current ?? '', files: dirty } });
    }
  }

  private worktreePath(persona: string): string {
    return join(this.root, 'worktrees', checkPersona(persona));
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.queue.then(work, work);
    this.queue = turn.catch(() => undefined);
    return turn;
  }
}

/**
 * The worktree's own admin directory inside the checkout's `.git/worktrees/`, read from the
 * `gitdir:` line of its `.git` file; undefined when `path` holds no worktree. Read from disk: these
 * checks run on every session start and a git process each would cost more than the rest.
 */
async function worktreeAdminDir(path: string): Promise<string | undefined> {
  const dotGit = await readFile(join(path, '.git'), 'utf8').catch(() => undefined);
  const admin = dotGit?.match(/^gitdir: (.+)$/m)?.[1]?.trim();
  return admin ? resolve(path, admin) : undefined;
}

/** git locks a worktree "initializing" while `worktree add` checks it out: still locked, the add was cut off. */
async function lockedInitializing(admin: string): Promise<boolean> {
  return (await readFile(join(admin, 'locked'), 'utf8').catch(() => '')).includes('initializing');
}
