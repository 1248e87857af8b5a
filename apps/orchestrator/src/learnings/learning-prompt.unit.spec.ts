import type { RankedLearning } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { renderLearningsForPrompt, splitLearning } from './learning-prompt';

const learning = (learningId: string, pattern: string, confidence = 0.5): RankedLearning => ({
  learningId,
  team: 'red',
  project: null,
  persona: null,
  category: 'gotcha',
  pattern,
  resolution: 'do the right thing',
  confidence,
  source: { kind: 'manual' },
  uses: 0,
  createdAt: '2026-11-27T06:00:00.000Z',
  usedAt: null,
  relevance: 0.5,
  score: 0.25,
});

describe('learnings in a prompt', () => {
  it('renders ranked learnings in order with their confidence', () => {
    const { text, learningIds } = renderLearningsForPrompt([learning('a', 'first', 0.8), learning('b', 'second')], 1_000);
    expect(text).toBe('- first → do the right thing (confidence 0.80)\n- second → do the right thing (confidence 0.50)');
    expect(learningIds).toEqual(['a', 'b']);
  });

  it('leaves out what does not fit the token budget but keeps a shorter one after it', () => {
    const { learningIds } = renderLearningsForPrompt([learning('short1', 'x'), learning('long', 'y'.repeat(400)), learning('short2', 'z')], 40);
    expect(learningIds).toEqual(['short1', 'short2']);
  });

  it('gives nothing when nothing fits', () => {
    expect(renderLearningsForPrompt([learning('a', 'y'.repeat(400))], 10)).toEqual({ text: '', learningIds: [] });
  });
});

describe('splitting a reflection learning', () => {
  it('splits at the first separator into pattern and resolution', () => {
    expect(splitLearning('bcrypt.compare is async: always await it')).toEqual({ pattern: 'bcrypt.compare is async', resolution: 'always await it' });
    expect(splitLearning('flaky port in tests → use port 0')).toEqual({ pattern: 'flaky port in tests', resolution: 'use port 0' });
  });

  it('keeps a line without separator whole as the pattern', () => {
    expect(splitLearning('prefer small commits')).toEqual({ pattern: 'prefer small commits', resolution: '' });
  });
});
