import { describe, expect, it } from 'vitest';
import { comparisonLines, evalRunSummaryLines, suitePathOf, type EvalComparisonLike, type EvalRunViewLike } from './eval-output';

describe('suitePathOf', () => {
  it('maps a bare suite name to evals/<name>.yaml', () => {
    expect(suitePathOf('smoke')).toBe('evals/smoke.yaml');
    expect(suitePathOf('smoke.yaml')).toBe('evals/smoke.yaml');
  });
  it('keeps a path as given (the API checks its shape)', () => expect(suitePathOf('evals/nightly.yml')).toBe('evals/nightly.yml'));
});

const view: EvalRunViewLike = {
  evalRunId: 'eval-smoke-1',
  status: 'completed',
  suite: 'smoke',
  config: { model: 'haiku' },
  baseline: null,
  simulated: true,
  tasks: [
    { taskId: 'a', status: 'graded', model: 'claude-haiku-4-5', score: 1, passed: true, grades: [{ type: 'file', passed: true, detail: 'ok' }], costUsd: '0.01' },
    { taskId: 'b', status: 'graded', model: 'claude-haiku-4-5', score: 0, passed: false, grades: [{ type: 'command', passed: false, detail: '`npm test` exited 1\nnot ok 1' }], costUsd: '0.01' },
  ],
  score: 0.5,
  passed: 1,
  total: 2,
  failure: null,
};

describe('evalRunSummaryLines', () => {
  it('shows each task with the first failing grader’s first line, the configuration and the score', () => {
    const lines = evalRunSummaryLines(view);
    expect(lines[0]).toBe('eval run eval-smoke-1 completed  [simulated]');
    expect(lines[1]).toBe('suite:   smoke (model haiku)');
    expect(lines).toContain('FAIL b  score 0.00  claude-haiku-4-5  (command: `npm test` exited 1)');
    expect(lines.at(-1)).toBe('score:   0.50  (1/2 tasks passed)');
  });
});

describe('comparisonLines', () => {
  const c: EvalComparisonLike = {
    base: 'b1',
    head: 'h1',
    threshold: 0.1,
    baseScore: 1,
    headScore: 0.5,
    tasks: [
      { taskId: 'a', baseScore: 1, headScore: 1, delta: 0, regressed: false, reason: null },
      { taskId: 'b', baseScore: 1, headScore: 0, delta: -1, regressed: true, reason: 'passed in the base run, fails now' },
    ],
    regressions: [{ taskId: 'b', reason: 'passed in the base run, fails now' }],
  };
  it('marks regressed tasks with their delta and reason and counts them', () => {
    const lines = comparisonLines(c);
    expect(lines).toContain('REGRESSED b  1.00 → 0.00 (-1.00)  passed in the base run, fails now');
    expect(lines).toContain('ok        a  1.00 → 1.00 (+0.00)');
    expect(lines.at(-1)).toBe('1 regression(s): b');
  });
  it('says when there is none', () => expect(comparisonLines({ ...c, regressions: [] }).at(-1)).toBe('no regressions (threshold 0.1)'));
});
