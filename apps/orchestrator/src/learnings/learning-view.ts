import type { LearningView } from '@headspace/contracts';
import type { LearningState } from './learning.decider';

/** A recorded learning as GET shows it, from its stream (always current, no read-model lag). */
export function learningView(state: LearningState & { recorded: NonNullable<LearningState['recorded']> }): LearningView {
  const r = state.recorded;
  const outcomes = Object.values(state.outcomes);
  return {
    learningId: r.learningId,
    team: r.team,
    project: r.project ?? null,
    persona: r.persona ?? null,
    category: r.category,
    pattern: r.pattern,
    resolution: r.resolution,
    confidence: state.confidence,
    source: r.source,
    reinforced: outcomes.filter((o) => o === 'reinforced').length,
    weakened: outcomes.filter((o) => o === 'weakened').length,
    createdAt: r.recordedAt,
    usedAt: state.usedAt ?? null,
  };
}
