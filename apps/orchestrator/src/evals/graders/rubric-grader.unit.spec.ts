import { describe, expect, it } from 'vitest';
import type { BudgetPort, ModelCall, ModelPort } from '../../sessions/run-session/session-ports';
import { parseRubricVerdict, RubricJudge } from './rubric-grader';

describe('parseRubricVerdict', () => {
  it('reads the verdict out of prose and a fence', () => expect(parseRubricVerdict('Here:\n```json\n{"score": 0.8, "reason": "clear"}\n```')).toEqual({ score: 0.8, reason: 'clear' }));
  it('clamps the score to 0..1', () => expect(parseRubricVerdict('{"score": 7}').score).toBe(1));
  it('refuses a reply without a score', () => expect(() => parseRubricVerdict('looks fine to me')).toThrow(/did not answer/));
});

const usage = { inputTokens: 100, outputTokens: 20, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
const model = (text: string, calls: ModelCall[] = []): ModelPort => ({
  contextWindow: () => 200_000,
  call: async (c) => {
    calls.push(c);
    return { model: 'claude-haiku-4-5', content: [{ type: 'text', text }], stopReason: 'end_turn', usage };
  },
});
const budget = (decision: 'allowed' | 'denied', recorded: unknown[] = []): BudgetPort => ({
  maySpend: async (r) => ({ decision, model: r.model, reason: decision === 'denied' ? 'team budget spent' : 'ok', reservationId: 'res-1' }) as never,
  recordUsage: async (r) => void recorded.push(r),
  release: async () => undefined,
});
const grader = { type: 'rubric' as const, rubric: 'The README explains how to run the app.', passScore: 0.7, weight: 1 };
const subject = { key: 'grader1', prompt: 'Write a README', answer: 'Wrote README.md', filesChanged: ['README.md'] };

describe('RubricJudge', () => {
  it('passes at the pass score, records the usage with the governor and shows the judge the rubric', async () => {
    const calls: ModelCall[] = [];
    const recorded: unknown[] = [];
    const result = await new RubricJudge(model('{"score": 0.8, "reason": "clear steps"}', calls), budget('allowed', recorded), 'haiku').grade(grader, subject);
    expect(result).toMatchObject({ type: 'rubric', score: 0.8, passed: true });
    expect(recorded).toHaveLength(1);
    expect(JSON.stringify(calls[0]!.messages)).toContain('explains how to run the app');
    expect(JSON.stringify(calls[0]!.system)).toContain('Situation: eval-rubric');
  });
  it('fails below the pass score', async () => expect((await new RubricJudge(model('{"score": 0.5}'), budget('allowed'), 'haiku').grade(grader, subject)).passed).toBe(false));
  it('grades 0 with the reason when the governor refuses, calling no model', async () => {
    const calls: ModelCall[] = [];
    const result = await new RubricJudge(model('{"score": 1}', calls), budget('denied'), 'haiku').grade(grader, subject);
    expect(result).toMatchObject({ score: 0, passed: false });
    expect(result.detail).toMatch(/denied the rubric judge: team budget spent/);
    expect(calls).toHaveLength(0);
  });
});
