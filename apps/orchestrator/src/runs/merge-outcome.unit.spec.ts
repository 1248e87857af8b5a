import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { unresolvedAsConflict } from './merge-outcome';

describe('merge outcome of a task whose worktree cannot be committed', () => {
  it('conflict markers left in the worktree are a conflict on those files', () => {
    const error = new HeadspaceError(ErrorCodes.workspaceUnresolvedConflict, 'con has unresolved conflicts in src/a.js', { details: { persona: 'con', files: ['src/a.js'] } });
    expect(unresolvedAsConflict(error)).toEqual({ status: 'conflict', files: ['src/a.js'] });
  });

  it('any other failure is still a failure', () => {
    const error = new HeadspaceError(ErrorCodes.workspaceWorktreeOffBranch, 'off branch');
    expect(() => unresolvedAsConflict(error)).toThrow(error);
  });
});
