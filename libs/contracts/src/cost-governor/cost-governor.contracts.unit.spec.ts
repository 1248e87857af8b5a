import { describe, expect, it } from 'vitest';
import { budgetIdOf, costGovernorEvents, maySpend, microsToUsd, recordUsage, usdAmountSchema } from './index';

describe('cost-governor contracts', () => {
  it.each([
    ['2', '2000000'],
    ['2.00', '2000000'],
    [1.5, '1500000'],
    ['0.000001', '1'],
    ['12.3456780', '12345678'],
  ] as const)('reads the USD amount %s as %s micro-dollars', (input, micros) => {
    expect(usdAmountSchema.parse(input)).toBe(micros);
  });

  it.each([['-1'], ['1.0000001'], ['abc'], [''], [-0.5]])('refuses %s as a USD amount', (input) => {
    expect(usdAmountSchema.safeParse(input).success).toBe(false);
  });

  it('prints micro-dollars as a six-decimal USD string', () => {
    expect([microsToUsd(1_900_000n), microsToUsd('5'), microsToUsd(-1_500_000n)]).toEqual(['1.900000', '0.000005', '-1.500000']);
  });

  it('names budgets after their scope', () => {
    expect(budgetIdOf({ kind: 'agent', team: 'alpha', persona: 'con' })).toBe('agent.alpha.con');
    expect(budgetIdOf({ kind: 'session', sessionId: 's1' })).toBe('session.s1');
  });

  it('owns every event it declares, each type once, on cost-governor subjects', () => {
    const types = costGovernorEvents.map((e) => e.type);
    expect(new Set(types).size).toBe(types.length);
    for (const event of costGovernorEvents) expect(event.subject).toMatch(/^(.+\.)?hs\.evt\.cost-governor\./);
    expect([maySpend.subject, recordUsage.subject]).toEqual(['hs.cmd.cost-governor.may-spend', 'hs.cmd.cost-governor.record-usage']);
  });

  it('requires every attribution key but the task on record-usage', () => {
    const result = recordUsage.request.safeParse({ attribution: { sessionId: 's', persona: 'p', team: 't', project: 'x' }, model: 'haiku', tokens: { inputTokens: 1, outputTokens: 1 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].path).toEqual(['attribution', 'surface']);
  });
});
