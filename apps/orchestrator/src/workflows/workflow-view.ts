import type { WorkflowView } from '@headspace/contracts';
import { stepFinal, type WorkflowState } from './workflow.decider';

/** The API's view of a workflow, from its folded stream (the caller checked it exists). */
export function workflowView(state: WorkflowState): WorkflowView {
  const s = state.started!;
  return {
    workflowId: s.workflowId,
    team: s.team,
    name: s.name,
    mode: s.mode,
    status: state.status === 'none' ? 'running' : state.status,
    concurrency: s.concurrency,
    simulated: s.simulated,
    steps: s.steps.map((step) => {
      const run = state.steps[step.id] ?? { attempts: 0 };
      const last = run.current ? undefined : run.ended;
      return {
        id: step.id,
        kind: step.kind,
        needs: step.needs,
        status: run.current ? 'running' : stepFinal(state, step.id) ? last!.status : 'pending',
        attempts: run.attempts,
        askId: run.last?.askId ?? null,
        prompt: run.last?.prompt ?? null,
        output: last?.output ?? null,
        reason: last?.reason ?? null,
        costUsd: last?.costUsd ?? null,
        startedAt: run.firstStartedAt ?? null,
        endedAt: last?.at ?? null,
      };
    }),
    reason: state.ended?.reason ?? null,
    startedAt: s.startedAt,
    endedAt: state.ended?.at ?? null,
  };
}
