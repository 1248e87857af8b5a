import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { LOOP_CONTEXT_FILE } from '@headspace/contracts';
import { git } from '../workspace/git';
import { pathExists } from '../workspace/run-checkout';
import { RunWorkspace } from '../workspace/run-workspace';
import type { RunSourcePolicy } from '../runs/run-source.policy';

export interface LoopCheckout {
  dir: string;
  branch: string;
  worktree: string;
  /** The worktree's head now: the last checkpoint (or the source's head before the first iteration). */
  head: string;
}

/** `refs/headspace/loops/<loopId>/i<n>`: every iteration's checkpoint keeps a ref, so one reverted by the diff limit stays auditable. */
export const checkpointRef = (loopId: string, iteration: number) => `refs/headspace/loops/${loopId}/i${iteration}`;
const CONTEXT_EXCLUDED = `:(exclude)${LOOP_CONTEXT_FILE}`;

/**
 * A loop's git side: the run workspace's checkout under `<HS_WORKSPACES_DIR>/.loops/<loopId>` and
 * one worktree on `headspace/<loopId>/<persona>`, where every iteration's session works and ends
 * in a checkpoint commit. The source is never written to. Every step is idempotent (a checkpoint
 * is found by its ref, or by a head past the iteration's base), so a pass repeated after a crash
 * repeats none of them.
 */
export class LoopWorkspace {
  private readonly loops = new Map<string, Promise<RunWorkspace>>();

  constructor(
    private readonly workspacesDir: string,
    private readonly sources: RunSourcePolicy,
  ) {}

  async prepare(loopId: string, source: string, persona: string): Promise<LoopCheckout> {
    const ws = await this.open(loopId, source);
    const worktree = await ws.worktreeFor(persona);
    return { dir: ws.dir, branch: ws.personaBranch(persona), worktree, head: (await git(worktree, ['rev-parse', 'HEAD'])).stdout.trim() };
  }

  /** Writes the loop-context file the next session reads. */
  async writeContext(worktree: string, text: string): Promise<void> {
    const path = join(worktree, LOOP_CONTEXT_FILE);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }

  /** The stop file in the loop's worktree, or in the source directory when the workspace is a local one. */
  async stopFilePresent(worktree: string, source: string, stopFile: string): Promise<boolean> {
    if (await pathExists(join(worktree, stopFile))) return true;
    return isAbsolute(source) && (await pathExists(join(source, stopFile)));
  }

  /** The iteration's checkpoint: everything in the worktree committed (an empty commit when nothing changed), once. */
  async checkpoint(loopId: string, worktree: string, iteration: number, baseCommit: string, message: string): Promise<string> {
    const ref = checkpointRef(loopId, iteration);
    const existing = await git(worktree, ['rev-parse', '--verify', '--quiet', ref], { allowFailure: true });
    if (existing.code === 0) return existing.stdout.trim();
    const head = (await git(worktree, ['rev-parse', 'HEAD'])).stdout.trim();
    if (head === baseCommit) {
      await git(worktree, ['add', '--all']);
      await git(worktree, ['commit', '--quiet', '--allow-empty', '--no-verify', '-m', message]);
    }
    // A head past the base with no ref yet: the commit of a pass cut off before the ref was written.
    const commit = (await git(worktree, ['rev-parse', 'HEAD'])).stdout.trim();
    await git(worktree, ['update-ref', ref, commit]);
    return commit;
  }

  /** Lines added plus deleted between two commits, and the files, the loop-context file left out. */
  async diff(worktree: string, from: string, to: string): Promise<{ lines: number; files: string[] }> {
    const { stdout } = await git(worktree, ['diff', '--numstat', '--no-renames', from, to, '--', '.', CONTEXT_EXCLUDED]);
    let lines = 0;
    for (const row of stdout.split('\n').filter(Boolean)) {
      const [added, deleted] = row.split('\t');
      lines += (Number(added) || 0) + (Number(deleted) || 0); // `-` for binary files: no lines
    }
    const names = await git(worktree, ['diff', '--name-only', '-z', '--no-renames', from, to, '--', '.', CONTEXT_EXCLUDED]);
    return { lines, files: names.stdout.split('\0').filter(Boolean) };
  }

  /** Puts the worktree (and its branch) back to `commit`, untracked files too. */
  async revertTo(worktree: string, commit: string): Promise<void> {
    await git(worktree, ['reset', '--quiet', '--hard', commit]);
    await git(worktree, ['clean', '-fdq']);
  }

  private open(loopId: string, source: string): Promise<RunWorkspace> {
    let ws = this.loops.get(loopId);
    if (!ws) {
      ws = RunWorkspace.prepare({ runId: loopId, source, root: join(this.workspacesDir, '.loops'), admitSource: (s) => this.sources.check(s) });
      ws.catch(() => this.loops.delete(loopId));
      this.loops.set(loopId, ws);
    }
    return ws;
  }
}
