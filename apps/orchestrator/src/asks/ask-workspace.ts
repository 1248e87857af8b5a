import { join } from 'node:path';
import { RunWorkspace } from '../workspace/run-workspace';
import type { RunSourcePolicy } from '../runs/run-source.policy';

export interface AskCheckout {
  dir: string;
  branch: string;
  baseCommit: string;
  worktree: string;
}

/**
 * An ask's git side, the run workspace's with one worker: `<HS_WORKSPACES_DIR>/.asks/<askId>/checkout` (a dot: no run id can take the name) on branch
 * `headspace/<askId>/main`, the agent in its worktree on `headspace/<askId>/<persona>`. When the
 * session ends its work is committed and merged into `headspace/<askId>/main`, which is the result:
 * the source is never written to (as with a run), so the user fetches the branch
 * (`git -C <source> fetch <dir> headspace/<askId>/main`) or reads the checkout. Every step is
 * idempotent, so an ask resumed after a crash repeats them safely.
 */
export class AskWorkspace {
  private readonly asks = new Map<string, Promise<RunWorkspace>>();

  constructor(
    private readonly workspacesDir: string,
    private readonly sources: RunSourcePolicy,
  ) {}

  /** Makes (or reopens) the checkout and the persona's worktree. `baseCommit` is the head now: record it once, on the first call. */
  async prepare(askId: string, source: string, persona: string): Promise<AskCheckout> {
    const ws = await this.open(askId, source);
    return { dir: ws.dir, branch: ws.branch, baseCommit: await ws.head(), worktree: await ws.worktreeFor(persona) };
  }

  /** Commits and merges the agent's work; the head of the result branch and the files it changed since `baseCommit`. */
  async finish(askId: string, source: string, persona: string, baseCommit: string, subject: string): Promise<{ commit: string; files: string[]; conflict?: string[] }> {
    const ws = await this.open(askId, source);
    const merged = await ws.mergeTask(persona, { id: askId, subject });
    if (merged.status === 'conflict') return { commit: await ws.head(), files: [], conflict: merged.files };
    // From the recorded base, not the merge: a merge repeated after a crash has nothing left to merge.
    return { commit: await ws.head(), files: await ws.changedFilesSince(baseCommit) };
  }

  private open(askId: string, source: string): Promise<RunWorkspace> {
    let ws = this.asks.get(askId);
    if (!ws) {
      ws = RunWorkspace.prepare({ runId: askId, source, root: join(this.workspacesDir, '.asks'), admitSource: (s) => this.sources.check(s) });
      ws.catch(() => this.asks.delete(askId));
      this.asks.set(askId, ws);
    }
    return ws;
  }
}
