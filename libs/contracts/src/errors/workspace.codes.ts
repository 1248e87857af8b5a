/** Error codes of a run's git workspace (checkout, persona worktrees, merges). Stable: add, never rename. Merged into ErrorCodes. */
export const WorkspaceErrorCodes = {
  workspaceGitFailed: 'WORKSPACE.GIT_FAILED',
  workspaceNameInvalid: 'WORKSPACE.NAME_INVALID',
  workspaceIntegrationDirty: 'WORKSPACE.INTEGRATION_DIRTY',
  workspaceWorktreeOffBranch: 'WORKSPACE.WORKTREE_OFF_BRANCH',
  workspaceWorktreeBroken: 'WORKSPACE.WORKTREE_BROKEN',
  workspaceUnresolvedConflict: 'WORKSPACE.UNRESOLVED_CONFLICT',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const WorkspaceHttpStatus: Record<string, number> = {
  [WorkspaceErrorCodes.workspaceIntegrationDirty]: 409,
  [WorkspaceErrorCodes.workspaceWorktreeOffBranch]: 409,
};
