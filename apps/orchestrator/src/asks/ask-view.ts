import type { AskView } from '@headspace/contracts';
import type { AskState } from './ask.decider';

/** The API's view of an ask, from its folded stream (the caller checked it exists). */
export function askView(state: AskState): AskView {
  const s = state.started!;
  const done = state.completed;
  return {
    askId: s.askId,
    team: s.team,
    status: state.status === 'none' ? 'running' : state.status,
    prompt: s.prompt,
    persona: s.persona,
    agent: s.agent ?? null,
    workspace: s.workspace,
    routing: s.routing,
    simulated: s.simulated,
    sessionId: state.session?.sessionId ?? null,
    result: done?.result ?? null,
    filesChanged: done?.filesChanged ?? [],
    dir: done?.dir ?? state.session?.dir ?? null,
    branch: done?.branch ?? state.session?.branch ?? null,
    commit: done?.commit ?? null,
    costUsd: done?.costUsd ?? state.failed?.costUsd ?? null,
    usage: done?.usage ?? null,
    turns: done?.turns ?? null,
    failure: state.failed?.reason ?? null,
    startedAt: s.startedAt,
    endedAt: done?.at ?? state.failed?.at ?? null,
  };
}
