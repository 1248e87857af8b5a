import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { givenDecider, learningDecider, reinforced, weakened, type LearningEvent } from './learning.decider';

const now = '2026-11-27T06:00:00.000Z';
const later = '2026-11-27T06:05:00.000Z';
const learningId = 'l-1a2b3c';
const data = {
  learningId,
  team: 'red',
  project: '/srv/projects/demo',
  persona: 'con',
  category: 'gotcha' as const,
  pattern: 'bcrypt.compare is async',
  resolution: 'always await it',
  confidence: 0.5,
  source: { kind: 'ask' as const, id: 'ask-1', sessionId: 's-1' },
};
const recorded: LearningEvent = { type: 'learning.recorded', data: { ...data, recordedAt: now } };
const spec = DeciderSpec.for(learningDecider);
const notFound = (e: unknown) => e instanceof HeadspaceError && e.code === ErrorCodes.learningNotFound && e.field === 'learningId';

describe('learning decider', () => {
  it('records a new learning', () => {
    spec.given([]).when({ type: 'record-learning', now, ...data }).then([recorded]);
  });

  it('records nothing when the same learning is recorded again', () => {
    spec.given([recorded]).when({ type: 'record-learning', now: later, ...data }).then([]);
  });

  it('raises confidence when a session given the learning completes', () => {
    spec.given([recorded]).when({ type: 'reinforce-learning', learningId, sessionId: 's-2', now: later }).then([
      { type: 'learning.reinforced', data: { learningId, sessionId: 's-2', confidence: 0.6, at: later } },
    ]);
  });

  it('lowers confidence when a session given the learning fails', () => {
    spec.given([recorded]).when({ type: 'weaken-learning', learningId, sessionId: 's-2', now: later }).then([
      { type: 'learning.weakened', data: { learningId, sessionId: 's-2', confidence: 0.3, at: later } },
    ]);
  });

  it('counts one outcome per session', () => {
    const first: LearningEvent = { type: 'learning.reinforced', data: { learningId, sessionId: 's-2', confidence: 0.6, at: later } };
    spec.given([recorded, first]).when({ type: 'weaken-learning', learningId, sessionId: 's-2', now: later }).then([]);
  });

  it('moves confidence from the latest value', () => {
    const first: LearningEvent = { type: 'learning.weakened', data: { learningId, sessionId: 's-2', confidence: 0.3, at: later } };
    spec.given([recorded, first]).when({ type: 'reinforce-learning', learningId, sessionId: 's-3', now: later }).then([
      { type: 'learning.reinforced', data: { learningId, sessionId: 's-3', confidence: 0.44, at: later } },
    ]);
  });

  it('refuses an outcome for a learning that does not exist', () => {
    spec.given([]).when({ type: 'reinforce-learning', learningId, sessionId: 's-2', now }).thenThrows(notFound);
  });

  it('keeps confidence strictly inside (0, 1) under repeated outcomes', () => {
    let up = 0.5;
    let down = 0.5;
    for (let i = 0; i < 20; i++) [up, down] = [reinforced(up), weakened(down)];
    expect(up).toBeLessThan(1);
    expect(down).toBeGreaterThan(0);
  });
});

describe('learnings given to a session', () => {
  const given = { sessionId: 's-1', team: 'red', learningIds: [learningId] };
  it('records the list once', () => {
    DeciderSpec.for(givenDecider).given([]).when({ type: 'give-learnings', now, ...given }).then([{ type: 'learning.given', data: { ...given, at: now } }]);
    DeciderSpec.for(givenDecider).given([{ type: 'learning.given', data: { ...given, at: now } }]).when({ type: 'give-learnings', now: later, ...given, learningIds: [] }).then([]);
  });
});
