import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { relative, resolve, isAbsolute } from 'node:path';
import { ErrorCodes, getRunDiff, HeadspaceError, RUN_DIFF_MAX_PATCH_CHARS } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { git } from '../../workspace/git';
import { RunRecorder } from '../run-recorder';
import { RUN_SETTINGS, type RunSettings } from '../run-ports';

const inside = (root: string, dir: string) => {
  const rel = relative(resolve(root), resolve(dir));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * `hs.qry.orchestrator.get-run-diff`: `git show` of one of the run's merge commits in the run's
 * checkout. Only commits the run recorded as merged are shown, and only from a checkout under the
 * workspaces directory: a caller names neither a path nor an arbitrary revision.
 */
@Controller()
export class GetRunDiffHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(RUN_SETTINGS) private readonly settings: RunSettings,
  ) {}

  @MessagePattern(getRunDiff)
  async handle({ runId, commit }: z.output<typeof getRunDiff.request>): Promise<z.output<typeof getRunDiff.response>> {
    const run = await RunRecorder.load(this.store, runId);
    const dir = run.state.workspace?.dir;
    if (!run.state.started || !dir) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${runId}" with a checkout`, { field: 'runId' });
    const merge = run.events.find((e) => e.type === 'run.task-merged' && e.data.commit !== undefined && e.data.commit.startsWith(commit));
    if (!merge || merge.type !== 'run.task-merged') throw new HeadspaceError(ErrorCodes.runNotFound, `No merge ${commit} in run "${runId}"`, { field: 'commit' });
    if (!inside(this.settings.workspacesDir, dir)) throw new HeadspaceError(ErrorCodes.runNotFound, `The checkout of run "${runId}" is outside the workspaces directory`, { field: 'runId' });
    const full = merge.data.commit!;
    // First parent: a merge commit's own change to the run branch (a plain commit's parent otherwise).
    const range = [`${full}^1`, full];
    const [numstat, patch] = await Promise.all([git(dir, ['diff', '--numstat', '-z', ...range]), git(dir, ['diff', '--no-color', '--no-ext-diff', ...range])]);
    return {
      runId,
      commit: full,
      taskKey: merge.data.taskKey,
      files: parseNumstat(numstat.stdout),
      patch: patch.stdout.slice(0, RUN_DIFF_MAX_PATCH_CHARS),
      truncated: patch.stdout.length > RUN_DIFF_MAX_PATCH_CHARS,
    };
  }
}

/** `git diff --numstat -z`: `<added>\t<deleted>\t<path>\0` (`-` counts for binary files; renames are not detected here). */
export function parseNumstat(output: string): Array<{ path: string; additions: number | null; deletions: number | null }> {
  return output
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const [added, deleted, ...path] = entry.split('\t');
      const count = (v: string | undefined) => (v === undefined || v === '-' ? null : Number(v));
      return { path: path.join('\t'), additions: count(added), deletions: count(deleted) };
    });
}
