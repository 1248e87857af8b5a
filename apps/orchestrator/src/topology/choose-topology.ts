import type { TaskSignals } from '@headspace/contracts';

export type Topology = 'ask' | 'run';

/**
 * Which topology a request runs as, from its TaskSignals alone (pure, so the same prompt always
 * chooses the same way, and the reason says why): a question or a small clear change is one agent;
 * wide work that is risky or open, or any request too vague to act on, goes to the agent team, whose
 * workshop tightens it into a spec and whose QA and review check the result.
 */
export function chooseTopology(signals: TaskSignals): { topology: Topology; reason: string } {
  if (signals.isExploration) return { topology: 'ask', reason: 'a question: one agent answers it' };
  if (signals.filesAffected >= 5 && (signals.requiresReasoning || signals.ambiguity !== 'low')) {
    return { topology: 'run', reason: `${signals.filesAffected}+ files and ${signals.requiresReasoning ? 'risky' : 'open'} work: an agent team (spec, tasks, QA, review)` };
  }
  if (signals.ambiguity === 'high') return { topology: 'run', reason: 'too open to act on directly: the team’s workshop turns it into a spec first' };
  return { topology: 'ask', reason: `a ${signals.requiresReasoning ? 'risky but narrow' : 'small, clear'} change: one agent` };
}
