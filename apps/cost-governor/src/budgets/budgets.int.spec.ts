import { getBudget, getSpend, listBudgets, maySpend, recordUsage, releaseReservation, resolveBudgetPause, setBudget } from '@headspace/contracts';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCostGovernor, type CostGovernorHarness } from '../testing/cost-governor-harness';
import { BudgetsProjection } from './budgets.projection';
import { SpendProjection } from '../reporting/spend.projection';

const agent = (team: string, persona: string, sessionId = `sess-${persona}`) => ({ sessionId, persona, team, project: 'proj', surface: 'cli' as const });
const estimate = { inputTokens: 2_000, maxOutputTokens: 1_000 };
// haiku 4.5 worst case: 2,000·1 + 1,000·5 = 7,000 µ$

describe('budgets', () => {
  let h: CostGovernorHarness;

  beforeAll(async () => {
    h = await startCostGovernor('budgets');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('keeps 50 concurrent agents on one team budget within one in-flight overshoot each, and the ledger reconciles exactly', async () => {
    const limit = 500_000n;
    await h.send(setBudget, { scope: { kind: 'team', team: 'gamma' }, limitUsd: '0.50', setBy: 'ops' });
    const recorded: bigint[] = [];
    const reserved: bigint[] = [];
    let refusals = 0;
    const random = (max: number) => Math.floor(Math.random() * max);
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        for (;;) {
          const answer = await h.send(maySpend, { attribution: agent('gamma', `p${i}`), model: 'haiku', estimate }, { timeoutMs: 30_000 });
          if (answer.decision === 'exceeded') {
            // Other agents' holds fill the budget for now: wait for them to settle.
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          if (answer.decision !== 'allow') {
            refusals++;
            return;
          }
          reserved.push(BigInt(answer.reservedMicros));
          // Actual usage varies up to 20% above the estimate: the overshoot an in-flight call may add.
          const usage = await h.send(
            recordUsage,
            { attribution: agent('gamma', `p${i}`), model: answer.routing.model, reservationId: answer.reservationId, tokens: { inputTokens: random(2_400), outputTokens: random(1_200) } },
            { timeoutMs: 30_000 },
          );
          recorded.push(BigInt(usage.costMicros));
        }
      }),
    );
    expect(refusals).toBe(50);
    expect(new Set(reserved)).toEqual(new Set([7_000n]));
    const maxOvershootPerCall = 2_400n * 1n + 1_200n * 5n - 7_000n; // 1,400 µ$
    const budget = await h.send(getBudget, { budgetId: 'team.gamma' });
    const spent = BigInt(budget.spentMicros);
    expect(spent).toBeLessThanOrEqual(limit + 50n * maxOvershootPerCall);
    expect(spent).toBeGreaterThanOrEqual((limit * 95n) / 100n - 7_000n);
    expect(budget.reservedMicros).toBe('0');
    expect(budget.status).toBe('paused');
    // The ledger reconciles to the micro-dollar: replies, budget aggregate, projection.
    const sum = recorded.reduce((a, b) => a + b, 0n);
    expect(spent).toBe(sum);
    await h.caughtUp();
    const spend = await h.send(getSpend, { groupBy: 'team', team: 'gamma' });
    expect(BigInt(spend.total.costMicros)).toBe(sum);
    expect(spend.total.calls).toBe(recorded.length);
  });

  it('answers paused while paused, names the approval-free resolution, and resumes with a raised limit', async () => {
    await h.send(setBudget, { scope: { kind: 'session', sessionId: 'sess-p' }, limitUsd: '0.01', setBy: 'ops' });
    await h.send(recordUsage, { attribution: agent('delta', 'may', 'sess-p'), model: 'haiku', tokens: { inputTokens: 9_500, outputTokens: 0 } });
    const paused = await h.send(maySpend, { attribution: agent('delta', 'may', 'sess-p'), estimate });
    expect(paused).toMatchObject({ decision: 'paused', code: 'BUDGET.PAUSED', reservedMicros: '0' });
    const resumed = await h.send(resolveBudgetPause, { budgetId: 'session.sess-p', decision: 'approve', addUsd: '0.02', resolvedBy: 'dev' });
    expect(resumed.budget).toMatchObject({ status: 'active', limitMicros: '30000', spentMicros: '9500' });
    const allowed = await h.send(maySpend, { attribution: agent('delta', 'may', 'sess-p'), signals: { filesAffected: 4 }, estimate });
    expect(allowed.decision).toBe('allow');
    expect(allowed.routing.reasons).toContain('Approaching budget limit (80%): sonnet → haiku');
  });

  it('stops a denied budget cleanly: new calls are refused with BUDGET.STOPPED, in-flight usage still settles', async () => {
    await h.send(setBudget, { scope: { kind: 'session', sessionId: 'sess-d' }, limitUsd: '0.01', setBy: 'ops' });
    const inFlight = await h.send(maySpend, { attribution: agent('delta', 'al', 'sess-d'), model: 'haiku', estimate: { inputTokens: 100, maxOutputTokens: 100 } });
    await h.send(recordUsage, { attribution: agent('delta', 'al', 'sess-d'), model: 'haiku', tokens: { inputTokens: 9_600, outputTokens: 0 } });
    await h.send(resolveBudgetPause, { budgetId: 'session.sess-d', decision: 'deny', resolvedBy: 'dev' });
    expect(await h.send(maySpend, { attribution: agent('delta', 'al', 'sess-d'), estimate })).toMatchObject({ decision: 'stopped', code: 'BUDGET.STOPPED' });
    const settled = await h.send(recordUsage, { attribution: agent('delta', 'al', 'sess-d'), model: 'haiku', reservationId: inFlight.reservationId, tokens: { inputTokens: 100, outputTokens: 10 } });
    expect(settled.budgets[0]).toEqual({ budgetId: 'session.sess-d', spentMicros: '9750', limitMicros: '10000' });
  });

  it('refuses a call above the per-turn input cap and clamps output to the turn cap', async () => {
    await h.send(setBudget, { scope: { kind: 'agent', team: 'eps', persona: 'con' }, turnInputTokens: 5_000, turnOutputTokens: 800, setBy: 'ops' });
    const capped = await h.send(maySpend, { attribution: agent('eps', 'con'), estimate: { inputTokens: 1_000, maxOutputTokens: 4_000 } });
    expect(capped).toMatchObject({ decision: 'allow', maxOutputTokens: 800 });
    const refused = await h.send(maySpend, { attribution: agent('eps', 'con'), estimate: { inputTokens: 6_000, maxOutputTokens: 100 } });
    expect(refused).toMatchObject({ decision: 'exceeded', code: 'BUDGET.TURN_CAP_EXCEEDED' });
  });

  it('fires each threshold exactly once with two governor instances on the same database', async () => {
    const second = await h.addInstance();
    expect(second).toBeDefined();
    await h.send(setBudget, { scope: { kind: 'project', project: 'twin' }, limitUsd: '1', setBy: 'ops' });
    // 40 calls of 50,000 µ$ (haiku: 10,000 output tokens) through both instances: $2.00 against $1.00.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        h.send(recordUsage, { attribution: { ...agent('twin-team', `p${i % 5}`), project: 'twin' }, model: 'haiku', tokens: { inputTokens: 0, outputTokens: 10_000 } }, { timeoutMs: 30_000 }),
      ),
    );
    const { rows } = await h.db.pool.query<{ type: string; level: string | null; n: string }>(
      `SELECT type, data ->> 'level' AS level, count(*) AS n FROM cost_governor.events WHERE stream_id = 'budget-project.twin' AND type IN ('budget.threshold-crossed', 'budget.paused') GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(rows.map((r) => [r.type, r.level, Number(r.n)])).toEqual([
      ['budget.paused', null, 1],
      ['budget.threshold-crossed', 'critical', 1],
      ['budget.threshold-crossed', 'warning', 1],
    ]);
    expect((await h.send(getBudget, { budgetId: 'project.twin' })).spentMicros).toBe('2000000');
  });

  it('reserves once for a retried may-spend (same command id), also when retries race', async () => {
    await h.send(setBudget, { scope: { kind: 'team', team: 'retry' }, limitUsd: '1', setBy: 'ops' });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => h.send(maySpend, { attribution: agent('retry', 'con'), model: 'haiku', estimate }, { commandId: 'may-spend-once' })),
    );
    expect(new Set(answers.map((a) => a.reservationId)).size).toBe(1);
    expect(answers.every((a) => a.decision === 'allow')).toBe(true);
    expect((await h.send(getBudget, { budgetId: 'team.retry' })).reservedMicros).toBe('7000');
    await h.caughtUp();
    expect((await h.send(listBudgets, { team: 'retry' })).budgets).toEqual([expect.objectContaining({ budgetId: 'team.retry', reservedMicros: '7000' })]);
  });

  it('gives an unused reservation back at once, and refuses one that is not held with RESERVATION.NOT_FOUND', async () => {
    await h.send(setBudget, { scope: { kind: 'team', team: 'rel' }, limitUsd: '1', setBy: 'ops' });
    const answer = await h.send(maySpend, { attribution: agent('rel', 'con'), model: 'haiku', estimate });
    const released = await h.send(releaseReservation, { attribution: agent('rel', 'con'), reservationId: answer.reservationId!, reason: 'call failed' });
    expect(released.released).toEqual([{ budgetId: 'team.rel', releasedMicros: '7000' }]);
    expect(await h.send(getBudget, { budgetId: 'team.rel' })).toMatchObject({ reservedMicros: '0', spentMicros: '0' });
    const again = await h.sendError(releaseReservation, { attribution: agent('rel', 'con'), reservationId: answer.reservationId! });
    expect({ code: again.code, field: again.field }).toEqual({ code: 'RESERVATION.NOT_FOUND', field: 'reservationId' });
  });

  it('lists a team\'s budgets from the read model with spend, holds and status', async () => {
    await h.caughtUp();
    const { budgets } = await h.send(listBudgets, { team: 'gamma' });
    const live = await h.send(getBudget, { budgetId: 'team.gamma' });
    expect(budgets).toEqual([expect.objectContaining({ budgetId: 'team.gamma', status: 'paused', spentMicros: live.spentMicros, reservedMicros: '0', limitMicros: '500000' })]);
    const paused = await h.send(listBudgets, { status: 'stopped' });
    expect(paused.budgets.map((b) => b.budgetId)).toEqual(['session.sess-d']);
  });

  it('answers BUDGET.NOT_FOUND for a budget that does not exist', async () => {
    const error = await h.sendError(getBudget, { budgetId: 'team.nobody' });
    expect(error.code).toBe('BUDGET.NOT_FOUND');
  });

  it('rebuilds the budgets and spend projections from position 0 to the same rows', async () => {
    await h.caughtUp();
    // Each on the instance holding its lease (the others cannot rebuild it).
    const holder = <P extends BudgetsProjection | SpendProjection>(type: new (...args: never[]) => P): P =>
      h.apps.map((app) => app.get<P>(type)).find((p) => p.runner.isLeaseHolder) ?? h.apps[0].get<P>(type);
    const spend = await expectRebuiltEqualsLive(holder(SpendProjection), h.db.pool);
    expect(spend.usage_ledger.length).toBeGreaterThan(50);
    await expectRebuiltEqualsLive(holder(BudgetsProjection), h.db.pool);
  });
});

describe('reservation expiry', () => {
  let h: CostGovernorHarness;

  beforeAll(async () => {
    h = await startCostGovernor('expiry', { HS_RESERVATION_TIMEOUT_MS: '200', HS_RESERVATION_SWEEP_MS: '50' });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('releases a reservation that is never settled, with an event', async () => {
    await h.send(setBudget, { scope: { kind: 'team', team: 'zeta' }, limitUsd: '1', setBy: 'ops' });
    const answer = await h.send(maySpend, { attribution: agent('zeta', 'con'), model: 'haiku', estimate });
    expect((await h.send(getBudget, { budgetId: 'team.zeta' })).reservedMicros).toBe('7000');
    await waitFor(async () => (await h.send(getBudget, { budgetId: 'team.zeta' })).reservedMicros === '0', { timeoutMs: 10_000 });
    const { rows } = await h.db.pool.query(`SELECT data FROM cost_governor.events WHERE type = 'budget.reservation-expired'`);
    expect(rows.map((r) => r.data.reservationId)).toEqual([answer.reservationId]);
  });
});
