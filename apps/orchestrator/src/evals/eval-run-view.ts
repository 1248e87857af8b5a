import type { EvalRunView } from '@headspace/contracts';
import type { EvalRunState } from './eval-run.decider';
import type { ScoredRun } from './eval-score';

/** The API's view of an eval run, from its folded stream (the caller checked it exists). */
export function evalRunView(state: EvalRunState): EvalRunView {
  const s = state.started!;
  const graded = Object.values(state.graded);
  return {
    evalRunId: s.evalRunId,
    team: s.team,
    status: state.status === 'none' ? 'running' : state.status,
    suite: s.suite.name,
    suitePath: s.suitePath,
    workspace: s.workspace,
    config: s.config,
    baseline: s.baseline ?? null,
    simulated: s.simulated,
    tasks: s.suite.tasks.map((task) => {
      const started = state.tasks[task.id];
      const g = state.graded[task.id];
      return {
        taskId: task.id,
        weight: task.weight,
        status: g ? 'graded' : started ? 'running' : 'pending',
        askId: started?.askId ?? null,
        model: started?.model ?? null,
        score: g?.score ?? null,
        passed: g?.passed ?? null,
        grades: g?.grades ?? [],
        costUsd: g?.costUsd ?? null,
      };
    }),
    score: state.completed?.score ?? null,
    passed: graded.filter((g) => g.passed).length,
    total: s.suite.tasks.length,
    failure: state.failed?.reason ?? null,
    startedAt: s.startedAt,
    endedAt: state.completed?.at ?? state.failed?.at ?? null,
  };
}

/** What `compare` reads of a run. */
export const scoredRun = (view: EvalRunView): ScoredRun => ({ evalRunId: view.evalRunId, score: view.score, tasks: view.tasks.map((t) => ({ taskId: t.taskId, score: t.score, passed: t.passed })) });
