import { ErrorCodes, HeadspaceError, parseRunSource } from '@headspace/contracts';
import { cp, mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { git, gitSucceeds } from './git';

/** The identity of commits Headspace makes itself (merges, the baseline); personas author their own. */
export const HEADSPACE_IDENTITY = { name: 'Headspace', email: 'headspace@localhost' };

/** Never copied from a plain directory: dependencies, foreign git data, Headspace's own run data. */
const COPY_SKIP = new Set(['node_modules', '.git', '.headspace']);

export const pathExists = (path: string) => stat(path).then(() => true, () => false);

/**
 * Builds the integration checkout `dir` (on `branch`) from `source`: a clone when `source` is the
 * root of a git repository (its history kept, `origin` pointing back at it), otherwise a copy of the
 * directory committed as "Baseline". Built in a staging directory renamed into place at the end, so
 * a crash leaves either no checkout or a whole one.
 */
export async function createCheckout(opts: { source: string; runRoot: string; dir: string; branch: string }): Promise<void> {
  const remote = parseRunSource(opts.source);
  if ('kind' in remote && remote.kind === 'git-url') return finishCheckout(opts, await cloneRemote(remote.url, opts.runRoot), remote.url, true);
  const info = await stat(opts.source).catch(() => undefined);
  if (!info?.isDirectory()) throw new HeadspaceError(ErrorCodes.runSourceNotFound, `Run source "${opts.source}" is not a directory`, { field: 'source' });
  const source = await realpath(opts.source);
  await mkdir(opts.runRoot, { recursive: true });
  const staging = join(opts.runRoot, `checkout.${process.pid}.tmp`);
  await rm(staging, { recursive: true, force: true });
  const cloned = await isRepositoryRoot(source);
  if (cloned) {
    await git(opts.runRoot, ['clone', '--quiet', '--no-hardlinks', source, staging]);
  } else {
    await copyTree(source, staging, await realpath(resolve(opts.runRoot, '..')));
    await git(staging, ['init', '--quiet']);
  }
  await finishCheckout(opts, staging, source, cloned);
}

/** Git transports a remote source may use; `ext::` and the rest stay off whatever the host's git config says. */
const REMOTE_PROTOCOLS = ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'protocol.ssh.allow=always'];

/** Clones a git URL (https, ssh) into a fresh staging directory: `--` so the URL is never read as an option. */
async function cloneRemote(url: string, runRoot: string): Promise<string> {
  await mkdir(runRoot, { recursive: true });
  const staging = join(runRoot, `checkout.${process.pid}.tmp`);
  await rm(staging, { recursive: true, force: true });
  await git(runRoot, [...REMOTE_PROTOCOLS, 'clone', '--quiet', '--no-recurse-submodules', '--', url, staging]);
  return staging;
}

async function finishCheckout(opts: { dir: string; branch: string }, staging: string, source: string, cloned: boolean): Promise<void> {
  await configureIdentity(staging);
  if (!(await gitSucceeds(staging, ['rev-parse', '--verify', '--quiet', 'HEAD']))) {
    await git(staging, ['add', '--all']);
    const origin = cloned ? `The empty repository ${source}.` : `Copied from ${source} (without ${[...COPY_SKIP].join(', ')}).`;
    await git(staging, ['commit', '--quiet', '--allow-empty', '-m', 'Baseline', '-m', origin]);
  }
  await git(staging, ['checkout', '--quiet', '-B', opts.branch]);
  try {
    await rename(staging, opts.dir);
  } catch (error) {
    if (!(await pathExists(join(opts.dir, '.git')))) throw error;
    await rm(staging, { recursive: true, force: true }); // another preparation finished first
  }
}

/**
 * Copies `from` into `to` without COPY_SKIP entries and without `avoid` (the workspaces directory,
 * when it lies inside the source). Directories on the way to `avoid` are walked by hand: fs.cp
 * refuses to copy a directory into itself even when a filter would leave that part out.
 */
async function copyTree(from: string, to: string, avoid: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const src = join(from, entry.name);
    if (COPY_SKIP.has(entry.name) || src === avoid) continue;
    if (entry.isDirectory() && avoid.startsWith(src + sep)) await copyTree(src, join(to, entry.name), avoid);
    // verbatimSymlinks: otherwise relative links are rewritten to point back into the source.
    else await cp(src, join(to, entry.name), { recursive: true, verbatimSymlinks: true, filter: (path) => !COPY_SKIP.has(basename(path)) });
  }
}

/** Repository-local identity, shared by every worktree: commits (the personas' own `git` too) work on a machine with no git config. */
export async function configureIdentity(dir: string): Promise<void> {
  await git(dir, ['config', 'user.name', HEADSPACE_IDENTITY.name]);
  await git(dir, ['config', 'user.email', HEADSPACE_IDENTITY.email]);
}

/** Only a repository's root is cloned; a directory inside one (examples/word-stats) is copied. */
async function isRepositoryRoot(path: string): Promise<boolean> {
  if (!(await pathExists(join(path, '.git')))) return false;
  const top = await git(path, ['rev-parse', '--show-toplevel'], { allowFailure: true });
  return top.code === 0 && (await realpath(top.stdout.trim())) === path;
}
