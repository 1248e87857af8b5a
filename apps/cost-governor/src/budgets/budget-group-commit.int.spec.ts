import { getBudget, maySpend, recordUsage, setBudget } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCostGovernor, type CostGovernorHarness } from '../testing/cost-governor-harness';

const agent = (i: number) => ({ sessionId: `sess-${i}`, persona: `p${i}`, team: 'shared', project: 'both', surface: 'cli' as const });

describe('group commit with two instances racing on shared budgets', () => {
  let h: CostGovernorHarness;

  beforeAll(async () => {
    h = await startCostGovernor('groupcommit');
    await h.addInstance();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('keeps every budget exact, all-or-none and within one in-flight overshoot per agent, with thresholds once', async () => {
    // Both instances serve the queue group, so their cached states go stale under each other all the time.
    await h.send(setBudget, { scope: { kind: 'team', team: 'shared' }, limitUsd: '0.58', setBy: 'ops' });
    await h.send(setBudget, { scope: { kind: 'project', project: 'both' }, limitUsd: '0.50', setBy: 'ops' });
    const recorded: bigint[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        for (;;) {
          const answer = await h.send(maySpend, { attribution: agent(i), model: 'haiku', estimate: { inputTokens: 2_000, maxOutputTokens: 1_000 } }, { timeoutMs: 30_000 });
          if (answer.decision === 'exceeded') {
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          if (answer.decision !== 'allow') return;
          expect(answer.budgets.map((b) => b.budgetId)).toEqual(['project.both', 'team.shared']);
          const usage = await h.send(
            recordUsage,
            { attribution: agent(i), model: 'haiku', reservationId: answer.reservationId, tokens: { inputTokens: 2_400, outputTokens: 1_200 } },
            { timeoutMs: 30_000 },
          );
          recorded.push(BigInt(usage.costMicros));
        }
      }),
    );
    const sum = recorded.reduce((a, b) => a + b, 0n);
    const project = await h.send(getBudget, { budgetId: 'project.both' });
    const team = await h.send(getBudget, { budgetId: 'team.shared' });
    // Every call settled on both budgets (the project pauses first; the team, at $0.58, only warns).
    expect([project.spentMicros, team.spentMicros]).toEqual([sum.toString(), sum.toString()]);
    expect([project.reservedMicros, team.reservedMicros]).toEqual(['0', '0']);
    expect(project.status).toBe('paused');
    // 8,400 µ$ a call against a 7,000 µ$ hold: at most 1,400 µ$ over per agent in flight.
    expect(BigInt(project.spentMicros)).toBeLessThanOrEqual(500_000n + 30n * 1_400n);
    const { rows } = await h.db.pool.query<{ stream_id: string; level: string; n: string }>(
      `SELECT stream_id, data ->> 'level' AS level, count(*) AS n FROM cost_governor.events WHERE type = 'budget.threshold-crossed' GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(rows.map((r) => [r.stream_id, r.level, Number(r.n)])).toEqual([
      ['budget-project.both', 'critical', 1],
      ['budget-project.both', 'warning', 1],
      ['budget-team.shared', 'warning', 1],
    ]);
    const { rows: versions } = await h.db.pool.query<{ stream_id: string; gaps: boolean }>(
      `SELECT stream_id, max(stream_version) <> count(*) AS gaps FROM cost_governor.events WHERE stream_id LIKE 'budget-%' GROUP BY 1`,
    );
    expect(versions.filter((v) => v.gaps)).toEqual([]);
  });
});
