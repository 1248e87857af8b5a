import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { MergeResult } from '../workspace/run-workspace';

/**
 * A persona that ended its task with conflict markers still in its worktree has not merged: that is
 * a conflict like any other (the run gives the persona a task to resolve it), not a failed pass that
 * every sweep would repeat.
 */
export function unresolvedAsConflict(error: unknown): MergeResult {
  if (error instanceof HeadspaceError && error.code === ErrorCodes.workspaceUnresolvedConflict) {
    const files = (error.details as { files?: string[] } | undefined)?.files ?? [];
    return { status: 'conflict', files };
  }
  throw error;
}
