import { resolveModel } from '@headspace/llm';
import { meter } from '@headspace/telemetry';
import type { SessionEvent, SessionState } from '../sessions/agent-session.decider';
import type { RunEvent } from '../runs/run.state';

const sessionsActive = meter.createUpDownCounter('headspace.orchestrator.sessions.active', {
  description: 'Agent sessions this process is running (started or resumed here, not ended), by persona',
});
const turns = meter.createCounter('headspace.orchestrator.turns', { description: 'Model turns recorded by agent sessions, by persona and model' });
const toolCalls = meter.createCounter('headspace.orchestrator.tool_calls', { description: 'Tool results recorded by agent sessions, by tool and outcome (ok or error)' });
const handoffs = meter.createCounter('headspace.orchestrator.handoffs', { description: 'Sessions that filled their context and handed off to a fresh one, by persona' });
const compactions = meter.createCounter('headspace.orchestrator.compactions', {
  description: 'Context compactions in agent sessions, by persona (below the handoff threshold, see HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE)',
});
const runsEnded = meter.createCounter('headspace.orchestrator.runs.ended', { description: 'Runs ended, by outcome (done, issues, failed)' });

export const runOutcomes = ['done', 'issues', 'failed'] as const;
for (const outcome of runOutcomes) runsEnded.add(0, { outcome });

/**
 * The sessions counted in sessions.active by this process: a session's start and its run may be
 * recorded by different recorders (the supervisor records the start, the runner the rest), so
 * whether it is counted is kept per session, not per recorder. Ids never become labels.
 */
const activeHere = new Set<string>();

/**
 * Counts a session's recorded steps into the orchestrator metrics. Fed only what a recorder appended
 * (never events read back or replayed), so a restarted orchestrator does not count a session's
 * history again. A session counts as active in the process that appended to it while it ran (a
 * resumed one too) until that process appends its end.
 */
export function countSessionEvents(sessionId: string, events: readonly SessionEvent[], state: SessionState): void {
  const persona = state.started?.persona ?? 'unknown';
  if (state.status === 'running' && !activeHere.has(sessionId)) {
    sessionsActive.add(1, { persona });
    activeHere.add(sessionId);
  }
  for (const event of events) {
    switch (event.type) {
      case 'session.started':
        // The persona's series exist from its first session, at 0 until something happens.
        turns.add(0, { persona, model: concreteModel(event.data.model) });
        handoffs.add(0, { persona });
        compactions.add(0, { persona });
        break;
      case 'session.model-called':
        turns.add(1, { persona, model: event.data.model });
        break;
      case 'session.tool-called':
        toolCalls.add(1, { tool: event.data.tool, outcome: event.data.isError ? 'error' : 'ok' });
        break;
      case 'session.handed-off':
        handoffs.add(1, { persona });
        break;
      case 'session.compacted':
        compactions.add(1, { persona });
        break;
      case 'session.ended':
        if (activeHere.delete(sessionId)) sessionsActive.add(-1, { persona });
        break;
    }
  }
}

/** The concrete model id an alias stands for (turns are recorded with concrete ids). */
function concreteModel(model: string): string {
  try {
    return resolveModel(model);
  } catch {
    return model;
  }
}

/** Counts a run's appended events (never replayed ones): its end by outcome. */
export function countRunEvents(events: readonly RunEvent[]): void {
  for (const event of events) {
    if (event.type === 'run.completed') runsEnded.add(1, { outcome: event.data.verdict });
    else if (event.type === 'run.failed') runsEnded.add(1, { outcome: 'failed' });
  }
}
