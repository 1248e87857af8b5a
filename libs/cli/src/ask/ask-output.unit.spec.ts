import { describe, expect, it } from 'vitest';
import { routingLine, summaryLines, turnLines, type AskViewLike } from './ask-output';

const view: AskViewLike = {
  askId: 'fix-1',
  status: 'completed',
  workspace: '/src/app',
  routing: { model: 'claude-haiku-4-5', tier: 'haiku', effort: 'quick', reasons: ['names 1 file: README.md'], pinned: false },
  simulated: true,
  result: 'Fixed the typo.',
  filesChanged: ['README.md'],
  dir: '/ws/.asks/fix-1/checkout',
  branch: 'headspace/fix-1/main',
  commit: 'abcdef0123456789',
  costUsd: '0.0027',
  failure: null,
};

describe('ask output', () => {
  it('says which model was routed to, at which effort, why, and whether it was pinned', () => {
    expect(routingLine(view.routing)).toBe('routing: claude-haiku-4-5 (haiku tier, quick effort) — names 1 file: README.md');
    expect(routingLine({ ...view.routing, pinned: true })).toContain('quick effort, pinned');
  });

  it('shows a turn as its words without the reflection JSON, then the tools it called', () => {
    const lines = turnLines([
      { type: 'thinking', text: 'hidden' },
      { type: 'text', text: 'Done.\n```json\n{"task_result":{}}\n```' },
      { type: 'tool_use', name: 'Edit', input: { file_path: 'README.md' } },
    ]);
    expect(lines).toEqual(['Done.', '  ↳ Edit README.md']);
  });

  it('ends with the result, the files, where to get the edit and the cost labelled simulated', () => {
    const lines = summaryLines(view);
    expect(lines).toContain('files:   README.md');
    expect(lines).toContain('get it:  git -C /src/app fetch /ws/.asks/fix-1/checkout headspace/fix-1/main   (or: git -C /ws/.asks/fix-1/checkout diff HEAD~1)');
    expect(lines.at(-1)).toBe('cost:    $0.0027 (simulated)');
  });

  it('a failed ask says why', () => {
    expect(summaryLines({ ...view, status: 'failed', failure: 'The session ended: budget_stopped' })[0]).toBe('✖ ask fix-1 failed: The session ended: budget_stopped');
  });
});
