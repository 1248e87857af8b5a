import { describe, expect, it } from 'vitest';
import { formatUsd, progressBar, renderRunProgress, renderRunSummary, type RunViewLike } from './run-progress';

const view: RunViewLike = {
  runId: 'most-frequent-words-1a2b3c4d',
  team: 'word-stats',
  title: 'Most frequent words',
  mode: 'v3',
  phase: 'execution',
  simulated: true,
  waitingFor: null,
  questions: [],
  tasks: [
    { key: 'T1', subject: 'Add topWords', status: 'merged', persona: 'con', attempts: 1, origin: 'plan' },
    { key: 'T2', subject: 'Add the CLI', status: 'running', persona: 'may', attempts: 1, origin: 'plan' },
  ],
  personas: [
    { persona: 'con', name: 'Con', activity: 'idle' },
    { persona: 'may', name: 'May', activity: "building T2 'Add the CLI' — Bash" },
  ],
  qaRounds: 0,
  resultDir: '/runs/x/checkout',
  branch: 'headspace/x/main',
  verdict: null,
  failure: null,
  startedAt: '2026-11-24T10:00:00.000Z',
  endedAt: null,
};

describe('run progress rendering', () => {
  it('shows a line per persona with what it is doing, the tasks bar and the cost, labelled simulated', () => {
    const lines = renderRunProgress(view, '0.42', { width: 100, color: false, now: new Date('2026-11-24T10:01:05.000Z') });
    expect(lines[0]).toBe('Most frequent words [simulated]  most-frequent-words-1a2b3c4d · 1m 05s');
    expect(lines[1]).toBe('Building');
    expect(lines).toContain("  May     building T2 'Add the CLI' — Bash");
    expect(lines).toContain('  Con     idle');
    expect(lines.at(-1)).toMatch(/^ {2}tasks \[#+\.+\] 1\/2 {3}cost \$0\.42$/);
  });

  it('a fix run shows its regression checks: the test fails before the fix and passes after it', () => {
    const checks: RunViewLike['regressionChecks'] = [
      { stage: 'before-fix', ok: false, exitCode: 0, commit: '1111111aaaa', at: '2026-11-24T10:00:30.000Z' },
      { stage: 'before-fix', ok: true, exitCode: 1, commit: '2222222bbbb', at: '2026-11-24T10:00:40.000Z' },
      { stage: 'after-fix', ok: true, exitCode: 0, commit: '3333333cccc', at: '2026-11-24T10:00:50.000Z' },
    ];
    const lines = renderRunProgress({ ...view, regressionChecks: checks }, undefined, { width: 100, color: false, now: new Date('2026-11-24T10:01:05.000Z') });
    expect(lines.slice(-3)).toEqual([
      '  regression test does not fail before the fix ✗ (sent back) (exit 0 at 1111111)',
      '  regression test fails before the fix ✓ (exit 1 at 2222222)',
      '  regression test passes after the fix ✓ (exit 0 at 3333333)',
    ]);
    expect(renderRunProgress(view, undefined, { width: 100, color: false, now: new Date() }).some((l) => l.includes('regression'))).toBe(false);
  });

  it('says what the run waits for', () => {
    const lines = renderRunProgress({ ...view, phase: 'spec-review', waitingFor: 'acceptance of the spec' }, undefined, { width: 80, color: false, now: new Date() });
    expect(lines.at(-1)).toBe('  waiting for acceptance of the spec');
  });

  it('shows dollars to the cent, and small amounts to four decimals', () => {
    expect(formatUsd('0.157341')).toBe('$0.16');
    expect(formatUsd('0.016905')).toBe('$0.0169');
    expect(formatUsd(12.5)).toBe('$12.50');
  });

  it('fills the bar in proportion to the tasks done', () => {
    expect(progressBar(0, 4, 8)).toBe('[........]');
    expect(progressBar(2, 4, 8)).toBe('[####....]');
    expect(progressBar(4, 4, 8)).toBe('[########]');
  });

  it('the summary names tasks, attempts, QA rounds, cost by persona and by model, wall time and where the result is', () => {
    const done: RunViewLike = {
      ...view,
      phase: 'completed',
      verdict: 'done',
      qaRounds: 2,
      endedAt: '2026-11-24T10:02:30.000Z',
      tasks: [...view.tasks.map((t) => ({ ...t, status: 'merged' })), { key: 'F1-1', subject: 'Fix: validate n', status: 'merged', persona: 'con', attempts: 1, origin: 'qa-fix' }],
    };
    const text = renderRunSummary(
      { view: done, totalUsd: '0.50', byPersona: [{ key: 'con', calls: 8, costUsd: '0.30' }, { key: 'may', calls: 3, costUsd: '0.20' }], byModel: [{ key: 'claude-sonnet-4-6', calls: 11, costUsd: '0.50' }] },
      { width: 100, color: false },
    ).join('\n');
    expect(text).toContain('✔ Most frequent words — completed (done)  [simulated: offline Messages-API simulator, no real model]');
    expect(text).toContain('wall time    2m 30s');
    expect(text).toContain('tasks        3 (1 from QA, 0 merge conflicts), 3 attempts');
    expect(text).toContain('QA rounds    2');
    expect(text).toContain('by persona con $0.30 (8 calls), may $0.20 (3 calls)');
    expect(text).toContain('by model   claude-sonnet-4-6 $0.50 (11 calls)');
    expect(text).toContain('result       /runs/x/checkout (branch headspace/x/main)');
  });
});
