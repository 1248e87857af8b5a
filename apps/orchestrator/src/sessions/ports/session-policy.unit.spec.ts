import { describe, expect, it } from 'vitest';
import { kindPolicy, sessionPolicy, type ManifestMember } from './session-policy';

const backend: ManifestMember = { role: 'Server logic', tools: ['Read', 'Write', 'Edit', 'Bash(npm test)', 'Bash(git:*)'], owns: ['src/api/**'] };

describe('session tool policy', () => {
  it('given a builder session and no manifest entry, when its policy is chosen, then every tool is allowed anywhere in the workspace', () => {
    expect(sessionPolicy({ kind: 'task' })).toEqual({});
  });

  it('given a builder whose persona is in the team manifest, when its policy is chosen, then the manifest allowlist and owns apply with writes elsewhere needing a lock', () => {
    expect(sessionPolicy({ kind: 'task' }, backend)).toEqual({ tools: backend.tools, owns: backend.owns, ownsPolicy: 'require-lock' });
  });

  it('given a review session of a persona the manifest lets write, when its policy is chosen, then it still only reads', () => {
    expect(sessionPolicy({ kind: 'review' }, backend)).toEqual({ tools: ['Read', 'Glob', 'Grep'] });
  });

  it('given a QA session, when its policy is chosen, then it may write test files only and is refused elsewhere', () => {
    expect(kindPolicy('qa')).toMatchObject({ owns: expect.arrayContaining(['test/**', '**/*.test.*']), ownsPolicy: 'refuse' });
  });

  it('given a start that pinned tools and owned paths, when its policy is chosen, then the pins win over the manifest and the kind', () => {
    expect(sessionPolicy({ kind: 'workshop', tools: ['Read', 'Bash(git:*)'], ownedPaths: ['docs/**'] }, backend)).toEqual({
      tools: ['Read', 'Bash(git:*)'],
      owns: ['docs/**'],
      ownsPolicy: 'require-lock',
    });
  });

  it('given a start that pinned only the tools, when its policy is chosen, then writes are not limited to owned paths', () => {
    expect(sessionPolicy({ kind: 'task', tools: ['Read'] }, backend)).toEqual({ tools: ['Read'] });
  });
});
