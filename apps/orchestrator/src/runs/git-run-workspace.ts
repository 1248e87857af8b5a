import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../workspace/git';
import { RunWorkspace } from '../workspace/run-workspace';
import type { RunWorkspacePort } from './run-ports';
import type { RunSourcePolicy } from './run-source.policy';

/** RunWorkspacePort on git (workspace/run-workspace.ts), one RunWorkspace per run under `root`. */
export class GitRunWorkspace implements RunWorkspacePort {
  private readonly runs = new Map<string, Promise<RunWorkspace>>();

  constructor(
    private readonly root: string,
    private readonly sources: RunSourcePolicy,
  ) {}

  async prepare(runId: string, source: string) {
    const ws = await this.open(runId, source);
    return { dir: ws.dir, branch: ws.branch, baseCommit: await ws.head() };
  }

  async worktreeFor(runId: string, persona: string) {
    return (await this.get(runId)).worktreeFor(persona);
  }

  async commit(runId: string, persona: string, message: string) {
    return (await this.get(runId)).commitWorktree(persona, message);
  }

  async mergeTask(runId: string, persona: string, task: { id: string; subject: string }) {
    return (await this.get(runId)).mergeTask(persona, task);
  }

  async head(runId: string) {
    return (await this.get(runId)).head();
  }

  async commitFiles(runId: string, message: string, paths: string[], write: (dir: string) => Promise<void>) {
    return (await this.get(runId)).commitFiles(message, paths, write);
  }

  /**
   * A detached worktree of `commit` under `<run>/checks/<name>`: the integration checkout stays
   * clean for merges whatever the command writes. One left by a crash is replaced.
   */
  async checkoutAt(runId: string, commit: string, name: string) {
    const ws = await this.get(runId);
    const dir = join(ws.root, 'checks', name);
    const remove = async () => {
      await git(ws.dir, ['worktree', 'remove', '--force', '--force', dir], { allowFailure: true });
      await rm(dir, { recursive: true, force: true });
      await git(ws.dir, ['worktree', 'prune']);
    };
    await remove();
    await git(ws.dir, ['worktree', 'add', '--quiet', '--detach', dir, commit]);
    return { dir, remove };
  }

  private open(runId: string, source: string): Promise<RunWorkspace> {
    let ws = this.runs.get(runId);
    if (!ws) {
      // The source is checked again where it is read (only when the checkout is made): start-run
      // checked it when the run began, but the roots may have narrowed since and links changed.
      ws = RunWorkspace.prepare({ runId, source, root: this.root, admitSource: (s) => this.sources.check(s) });
      ws.catch(() => this.runs.delete(runId));
      this.runs.set(runId, ws);
    }
    return ws;
  }

  private get(runId: string): Promise<RunWorkspace> {
    const ws = this.runs.get(runId);
    if (!ws) throw new Error(`Run ${runId}: workspace not prepared in this process`);
    return ws;
  }
}
