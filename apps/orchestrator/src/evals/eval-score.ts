import type { EvalComparison, EvalGrade } from '@headspace/contracts';

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** A task's score: its grades' weighted mean; it passes only when every grader passes. */
export function taskScore(grades: EvalGrade[]): { score: number; passed: boolean } {
  const total = grades.reduce((sum, g) => sum + g.weight, 0);
  if (grades.length === 0 || total === 0) return { score: 0, passed: false };
  return { score: round(grades.reduce((sum, g) => sum + g.weight * g.score, 0) / total), passed: grades.every((g) => g.passed) };
}

/** The run's score: its tasks' scores, weighted by the tasks' weights. */
export function overallScore(tasks: Array<{ weight: number; score: number }>): number {
  const total = tasks.reduce((sum, t) => sum + t.weight, 0);
  return total === 0 ? 0 : round(tasks.reduce((sum, t) => sum + t.weight * t.score, 0) / total);
}

export interface ScoredRun {
  evalRunId: string;
  score: number | null;
  tasks: Array<{ taskId: string; score: number | null; passed: boolean | null }>;
}

/**
 * Per-task deltas of `head` against `base`. A task regressed when it passed in the base and fails
 * now, or its score fell by more than `threshold`. A task of the base missing from the head is a
 * regression too (it can no longer pass); a task new in the head is listed without one.
 */
export function compareRuns(base: ScoredRun, head: ScoredRun, threshold: number): EvalComparison {
  const baseTasks = new Map(base.tasks.map((t) => [t.taskId, t]));
  const headTasks = new Map(head.tasks.map((t) => [t.taskId, t]));
  const ids = [...base.tasks.map((t) => t.taskId), ...head.tasks.map((t) => t.taskId).filter((id) => !baseTasks.has(id))];
  const tasks = ids.map((taskId) => {
    const b = baseTasks.get(taskId);
    const h = headTasks.get(taskId);
    const delta = b?.score != null && h?.score != null ? round(h.score - b.score) : null;
    let reason: string | null = null;
    if (b && !h) reason = 'missing from the head run';
    else if (b?.passed && h?.passed === false) reason = 'passed in the base run, fails now';
    else if (delta !== null && delta < -threshold) reason = `score fell by ${round(-delta)} (more than ${threshold})`;
    return { taskId, baseScore: b?.score ?? null, headScore: h?.score ?? null, delta, basePassed: b?.passed ?? null, headPassed: h?.passed ?? null, regressed: reason !== null, reason };
  });
  return { base: base.evalRunId, head: head.evalRunId, threshold, baseScore: base.score, headScore: head.score, tasks, regressions: tasks.filter((t) => t.regressed) };
}
