import type { LoopView } from '@headspace/contracts';
import { microsToUsd } from '../asks/ask-cost';
import type { LoopState } from './loop.decider';

const micros = (usd: string) => BigInt(Math.round(Number(usd) * 1_000_000));

/** The API's view of a loop, from its folded stream (the caller checked it exists). */
export function loopView(state: LoopState): LoopView {
  const s = state.started!;
  const last = state.iterations.at(-1)?.started;
  const costs = state.iterations.map((i) => i.ended?.costUsd);
  return {
    loopId: s.loopId,
    team: s.team,
    status: state.status === 'none' ? 'running' : state.status,
    task: s.task,
    persona: s.persona,
    workspace: s.workspace,
    check: s.check ?? null,
    limits: s.limits,
    routing: s.routing,
    simulated: s.simulated,
    dir: last?.dir ?? null,
    branch: last?.branch ?? null,
    worktree: last?.worktree ?? null,
    iterations: state.iterations.map(({ started, ended }) => ({
      iteration: started.iteration,
      sessionId: started.sessionId,
      status: ended ? 'ended' : 'running',
      baseCommit: started.baseCommit,
      agentStatus: ended?.agentStatus ?? null,
      summary: ended?.summary ?? null,
      checkpoint: ended?.checkpoint ?? null,
      diffLines: ended?.diffLines ?? null,
      filesChanged: ended?.filesChanged ?? [],
      check: ended?.check ?? null,
      learnings: ended?.learnings ?? [],
      costUsd: ended?.costUsd ?? null,
      startedAt: started.at,
      endedAt: ended?.at ?? null,
    })),
    stopRequested: state.stopRequested,
    stopReason: state.stopped?.reason ?? null,
    stopDetail: state.stopped?.detail ?? null,
    revertedTo: state.stopped?.revertedTo ?? null,
    // Unknown while any ended iteration's cost is unknown (a model the price table does not price).
    costUsd: costs.some((c, i) => c === undefined && state.iterations[i].ended) ? null : microsToUsd(costs.reduce((sum, c) => sum + (c ? micros(c) : 0n), 0n)),
    startedAt: s.startedAt,
    endedAt: state.stopped?.at ?? null,
  };
}
