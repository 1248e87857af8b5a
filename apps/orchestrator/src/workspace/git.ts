import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { execFile } from 'node:child_process';

export interface GitResult {
  stdout: string;
  stderr: string;
  /** The exit code; non-zero only when the call allowed failure. */
  code: number;
}

/** A git command that failed (or could not start). Carries git's own words in `details.stderr`. */
export class GitError extends HeadspaceError {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    cause?: unknown,
  ) {
    const tail = stderr.trim().split('\n').slice(-3).join(' | ');
    super(ErrorCodes.workspaceGitFailed, `git ${args.join(' ')} failed (${exitCode ?? 'not started'}): ${tail}`, { details: { args, exitCode, stderr: tail }, cause });
  }
}

/**
 * Settings that hold for every call whatever the machine's own git config says: hooks (a global
 * hooksPath, or husky) must not run inside run checkouts, and a global `commit.gpgsign` would make
 * every commit fail or prompt.
 */
const FIXED_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', '-c', 'core.quotePath=false'];

/**
 * The caller's GIT_* variables are dropped: a GIT_DIR or GIT_INDEX_FILE inherited from a git hook
 * (tests run from pre-commit) would point every command at the wrong repository.
 */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  // LC_ALL=C: the few messages read back (a worktree's lock reason) must not be translated.
  return { ...env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no' };
}

/** Runs git with an argument list (never a shell string) in `cwd`. Rejects with a GitError unless `allowFailure`. */
export function git(cwd: string, args: string[], options: { allowFailure?: boolean } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', [...FIXED_CONFIG, ...args], { cwd, env: gitEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exit = error ? (error as { code?: unknown }).code : 0;
      // A string code (ENOENT, …) means git never ran: that is never an allowed failure.
      if (error && typeof exit !== 'number') return reject(new GitError(args, null, error.message, error));
      const code = typeof exit === 'number' ? exit : 1;
      if (error && !options.allowFailure) return reject(new GitError(args, code, String(stderr), error));
      resolve({ stdout: String(stdout), stderr: String(stderr), code });
    });
  });
}

/** Whether the command exits 0 (for questions such as `rev-parse --verify`). */
export async function gitSucceeds(cwd: string, args: string[]): Promise<boolean> {
  return (await git(cwd, args, { allowFailure: true })).code === 0;
}

/** The non-empty lines of the command's output. */
export async function gitLines(cwd: string, args: string[]): Promise<string[]> {
  return (await git(cwd, args)).stdout.split('\n').filter(Boolean);
}

/** The paths a path-listing command prints, read with `-z` so that no file name can break them. */
export async function gitPaths(cwd: string, args: string[]): Promise<string[]> {
  return (await git(cwd, [...args, '-z'])).stdout.split('\0').filter(Boolean);
}

export interface StatusEntry {
  /** The two-letter XY status of porcelain v1 (`' M'`, `'??'`, `'UU'`, …). */
  status: string;
  path: string;
}

/** Entries of `git status --porcelain=v1 -z` (a rename or copy gives its new path). */
export function parsePorcelain(output: string): StatusEntry[] {
  const entries: StatusEntry[] = [];
  const parts = output.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.length < 4) continue;
    const status = part.slice(0, 2);
    entries.push({ status, path: part.slice(3) });
    if (status[0] === 'R' || status[0] === 'C') i++; // the original path follows
  }
  return entries;
}

export interface WorktreeStatus {
  /** The checked-out branch; undefined on a detached HEAD. */
  branch?: string;
  entries: StatusEntry[];
}

/**
 * `git status --porcelain=v1 -z --branch` in one call: the branch (from the `## ` header) and the
 * entries. `untrackedAll` lists every untracked file rather than their directories.
 */
export async function gitStatus(cwd: string, options: { untrackedAll?: boolean } = {}): Promise<WorktreeStatus> {
  const { stdout } = await git(cwd, ['status', '--porcelain=v1', '-z', '--branch', ...(options.untrackedAll ? ['--untracked-files=all'] : [])]);
  const cut = stdout.indexOf('\0');
  const header = cut < 0 ? stdout : stdout.slice(0, cut);
  return { branch: branchOfHeader(header), entries: parsePorcelain(cut < 0 ? '' : stdout.slice(cut + 1)) };
}

/** The branch of a porcelain v1 `## ` header: `## b`, `## b...origin/b [ahead 1]`, `## No commits yet on b`, `## HEAD (no branch)`. */
export function branchOfHeader(header: string): string | undefined {
  if (!header.startsWith('## ')) return undefined;
  const rest = header.slice(3);
  if (rest.startsWith('HEAD (no branch)')) return undefined;
  const name = rest.replace(/^(No commits yet on|Initial commit on) /, '');
  return name.split('...')[0].split(' [')[0];
}

const UNMERGED = new Set(['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']);

/** Whether a porcelain status is one of git's unmerged (conflicted, not yet marked resolved) states. */
export function isUnmerged(status: string): boolean {
  return UNMERGED.has(status);
}

/** Whether text still holds the `<<<<<<<` or `>>>>>>>` lines git writes around a conflict. */
export function hasConflictMarkers(text: string): boolean {
  return /^(<{7}|>{7})( |$)/m.test(text);
}
