import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';

export interface GitMounts {
  /** The repository's git directory when it lies outside the worktree (a `git worktree`). */
  writable: string[];
  /** What the orchestrator's own git would obey or follow: config, hooks, the `.git` pointer. */
  protected: string[];
}

const exists = (p: string) => stat(p).then(() => true, () => false);
const inside = (root: string, p: string) => {
  const r = relative(root, p);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};

/**
 * What a worktree needs mounted for `git` to work inside the sandbox, and what must stay
 * read-only there: an agent that could edit `.git/config` (core.fsmonitor, a filter driver) or the
 * `.git` file of a worktree would run code on the host the next time the orchestrator runs git.
 */
export async function gitMounts(workspace: string): Promise<GitMounts> {
  const dotGit = join(workspace, '.git');
  const st = await stat(dotGit).catch(() => undefined);
  if (!st) return { writable: [], protected: [] };
  let gitDir = dotGit;
  let commonDir = dotGit;
  const pointers: string[] = [];
  if (st.isFile()) {
    const m = /^gitdir:\s*(.+)$/m.exec(await readFile(dotGit, 'utf8'));
    if (!m) return { writable: [], protected: [dotGit] };
    gitDir = await realpath(resolve(workspace, m[1].trim())).catch(() => resolve(workspace, m[1].trim()));
    const common = await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => undefined);
    commonDir = common ? await realpath(resolve(gitDir, common.trim())).catch(() => resolve(gitDir, common.trim())) : gitDir;
    pointers.push(dotGit, join(gitDir, 'commondir'), join(gitDir, 'gitdir'), join(gitDir, 'config.worktree'));
  }
  const writable = [commonDir, gitDir].filter((d, i, all) => !inside(workspace, d) && all.findIndex((o) => inside(o, d)) === i);
  const candidates = [...pointers, join(commonDir, 'config'), join(commonDir, 'hooks'), join(commonDir, 'info')];
  const present = await Promise.all(candidates.map(async (p) => ((await exists(p)) ? p : undefined)));
  return { writable, protected: [...new Set(present.filter((p): p is string => p !== undefined))] };
}
