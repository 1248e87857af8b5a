import type { EvalGrade } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { compareRuns, overallScore, taskScore, type ScoredRun } from './eval-score';

const g = (score: number, passed: boolean, weight = 1): EvalGrade => ({ type: 'rubric', weight, score, passed, detail: '' });
const run = (evalRunId: string, tasks: Array<[string, number, boolean]>): ScoredRun => ({
  evalRunId,
  score: overallScore(tasks.map(([, score]) => ({ weight: 1, score }))),
  tasks: tasks.map(([taskId, score, passed]) => ({ taskId, score, passed })),
});

describe('taskScore', () => {
  it('is the weighted mean of the grades', () => expect(taskScore([g(1, true, 3), g(0, false, 1)]).score).toBe(0.75));
  it('passes only when every grader passes', () => {
    expect(taskScore([g(1, true), g(0.9, true)]).passed).toBe(true);
    expect(taskScore([g(1, true), g(0.4, false)]).passed).toBe(false);
  });
  it('scores a task without grades 0, failed', () => expect(taskScore([])).toEqual({ score: 0, passed: false }));
});

describe('overallScore', () => {
  it('weights tasks by their weight', () => expect(overallScore([{ weight: 1, score: 1 }, { weight: 3, score: 0 }])).toBe(0.25));
});

describe('compareRuns', () => {
  const base = run('base', [['a', 1, true], ['b', 0.9, true], ['c', 0.2, false], ['d', 1, true]]);

  it('lists a task that passed in the base and fails now as a regression', () => {
    const head = run('head', [['a', 1, true], ['b', 0.9, true], ['c', 0.2, false], ['d', 0.95, false]]);
    const result = compareRuns(base, head, 0.1);
    expect(result.regressions.map((r) => r.taskId)).toEqual(['d']);
    expect(result.regressions[0]!.reason).toMatch(/passed in the base run, fails now/);
  });

  it('lists a score drop past the threshold even when the task still passes', () => {
    const head = run('head', [['a', 1, true], ['b', 0.6, true], ['c', 0.2, false], ['d', 1, true]]);
    const result = compareRuns(base, head, 0.1);
    expect(result.regressions.map((r) => [r.taskId, r.delta])).toEqual([['b', -0.3]]);
  });

  it('lists no regression for a drop within the threshold or an improvement', () => {
    const head = run('head', [['a', 0.95, true], ['b', 0.9, true], ['c', 1, true], ['d', 1, true]]);
    const result = compareRuns(base, head, 0.1);
    expect(result.regressions).toEqual([]);
    expect(result.tasks.find((t) => t.taskId === 'c')!.delta).toBe(0.8);
  });

  it('counts a task missing from the head as regressed and lists a new one without', () => {
    const head = run('head', [['a', 1, true], ['b', 0.9, true], ['c', 0.2, false], ['e', 1, true]]);
    const result = compareRuns(base, head, 0.1);
    expect(result.regressions.map((r) => r.taskId)).toEqual(['d']);
    expect(result.tasks.find((t) => t.taskId === 'e')).toMatchObject({ baseScore: null, headScore: 1, regressed: false });
  });
});
