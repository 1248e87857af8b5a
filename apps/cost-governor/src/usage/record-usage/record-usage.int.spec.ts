import { getSpend, getTaskCost, recordUsage, setBudget } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCostGovernor, type CostGovernorHarness } from '../../testing/cost-governor-harness';

const attribution = { taskId: 'task-1', sessionId: 'sess-1', persona: 'con', team: 'alpha', project: 'proj', surface: 'cli' as const };
const tokens = { inputTokens: 10_000, outputTokens: 2_000, cacheWrite5mTokens: 4_000, cacheWrite1hTokens: 1_000, cacheReadTokens: 20_000 };

describe('record-usage', () => {
  let h: CostGovernorHarness;
  /** Events in the log once the monitor (which may append alerts of its own) has caught up. */
  const eventCount = async () => {
    await h.caughtUp();
    return Number((await h.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM cost_governor.events')).rows[0].n);
  };

  beforeAll(async () => {
    h = await startCostGovernor('usage');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('records the cost computed from the price table with its version', async () => {
    const reply = await h.send(recordUsage, { attribution, model: 'sonnet', tokens });
    expect(reply).toMatchObject({ model: 'claude-sonnet-4-6', costMicros: '87000', costUsd: '0.087000', priceVersion: 3 });
    const { rows } = await h.db.pool.query(`SELECT data FROM cost_governor.events WHERE type = 'usage.recorded' AND data ->> 'usageId' = $1`, [reply.usageId]);
    expect(rows[0].data).toMatchObject({ costMicros: '87000', priceVersion: 3, tier: 'sonnet', attribution });
  });

  it('records a retried command once', async () => {
    const first = await h.send(recordUsage, { attribution, model: 'haiku', tokens }, { commandId: 'retry-me' });
    const before = await eventCount();
    const again = await h.send(recordUsage, { attribution, model: 'haiku', tokens }, { commandId: 'retry-me' });
    expect(again).toEqual(first);
    expect(await eventCount()).toBe(before);
  });

  it('halves the cost of batch calls', async () => {
    const reply = await h.send(recordUsage, { attribution, model: 'haiku', serviceTier: 'batch', tokens });
    expect(reply.costMicros).toBe('14500');
  });

  it.each([
    ['negative tokens', { attribution, model: 'sonnet', tokens: { ...tokens, outputTokens: -1 } }, 'CONTRACTS.VALIDATION_FAILED', 'tokens.outputTokens'],
    ['an unknown model', { attribution, model: 'gpt-5', tokens }, 'COST.UNKNOWN_MODEL', 'model'],
    ['a missing session', { attribution: { ...attribution, sessionId: undefined }, model: 'sonnet', tokens }, 'CONTRACTS.VALIDATION_FAILED', 'attribution.sessionId'],
    ['a missing persona', { attribution: { ...attribution, persona: undefined }, model: 'sonnet', tokens }, 'CONTRACTS.VALIDATION_FAILED', 'attribution.persona'],
    ['a missing team', { attribution: { ...attribution, team: undefined }, model: 'sonnet', tokens }, 'CONTRACTS.VALIDATION_FAILED', 'attribution.team'],
    ['a missing project', { attribution: { ...attribution, project: undefined }, model: 'sonnet', tokens }, 'CONTRACTS.VALIDATION_FAILED', 'attribution.project'],
    ['a missing surface', { attribution: { ...attribution, surface: undefined }, model: 'sonnet', tokens }, 'CONTRACTS.VALIDATION_FAILED', 'attribution.surface'],
  ])('refuses %s with a typed error naming the field and records nothing', async (_what, body, code, field) => {
    const before = await eventCount();
    const error = await h.sendError(recordUsage, body);
    expect({ code: error.code, field: error.field }).toEqual({ code, field });
    expect(await eventCount()).toBe(before);
  });

  it('attributes cost to the task and every other key', async () => {
    const task = { ...attribution, taskId: 'task-attr' };
    await h.send(recordUsage, { attribution: task, model: 'opus', tokens });
    await h.send(recordUsage, { attribution: { ...task, persona: 'al' }, model: 'haiku', tokens });
    await h.caughtUp();
    expect(await h.send(getTaskCost, { taskId: 'task-attr' })).toMatchObject({ calls: 2, inputTokens: 20_000, outputTokens: 4_000, costMicros: '174000', costUsd: '0.174000' });
    const byPersona = await h.send(getSpend, { groupBy: 'persona', team: 'alpha' });
    expect(byPersona.groups.map((g) => g.key).sort()).toEqual(['al', 'con']);
    expect(BigInt(byPersona.total.costMicros)).toBe(byPersona.groups.reduce((sum, g) => sum + BigInt(g.costMicros), 0n));
  });

  it('charges the usage to the budgets of its attribution', async () => {
    await h.send(setBudget, { scope: { kind: 'team', team: 'beta' }, limitUsd: '10', setBy: 'ops' });
    const reply = await h.send(recordUsage, { attribution: { ...attribution, team: 'beta' }, model: 'sonnet', tokens });
    expect(reply.budgets).toEqual([{ budgetId: 'team.beta', spentMicros: '87000', limitMicros: '10000000' }]);
  });
});
