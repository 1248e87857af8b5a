import { exportUsage, getCacheEconomics, getQuota, getSpend, recordRateLimit, recordUsage, setQuota } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCostGovernor, type CostGovernorHarness } from '../testing/cost-governor-harness';

const at = (persona: string, team = 'cachers', project = 'mon', surface: 'cli' | 'web' = 'cli') => ({ sessionId: `s-${persona}`, persona, team, project, surface });

describe('cache economics, quota and reporting', () => {
  let h: CostGovernorHarness;
  const events = async (type: string) => (await h.db.pool.query(`SELECT data FROM cost_governor.events WHERE type = $1 ORDER BY global_position`, [type])).rows.map((r) => r.data);

  beforeAll(async () => {
    h = await startCostGovernor('monitor', { HS_CACHE_MIN_TOKENS: '1000' });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('reports hit rate and savings per agent and alerts once when an agent falls under 70%', async () => {
    // con: 80,000 of 100,000 prompt tokens read from cache (80%); al: 20,000 of 100,000 (20%).
    await h.send(recordUsage, { attribution: at('con'), model: 'sonnet', tokens: { inputTokens: 10_000, cacheWrite5mTokens: 10_000, cacheReadTokens: 80_000, outputTokens: 0 } });
    await h.send(recordUsage, { attribution: at('al'), model: 'sonnet', tokens: { inputTokens: 70_000, cacheWrite5mTokens: 10_000, cacheReadTokens: 20_000, outputTokens: 0 } });
    await h.send(recordUsage, { attribution: at('al'), model: 'sonnet', tokens: { inputTokens: 70_000, cacheWrite5mTokens: 10_000, cacheReadTokens: 20_000, outputTokens: 0 } });
    await h.caughtUp();
    const alerts = await events('cache.hit-rate-low');
    expect(alerts.map((a) => [a.persona, a.hitRate, a.threshold])).toEqual([['al', 0.2, 0.7]]);
    const economics = await h.send(getCacheEconomics, { team: 'cachers' });
    const con = economics.agents.find((a) => a.persona === 'con')!;
    expect(con).toMatchObject({ hitRate: 0.8, alerting: false, cacheReadTokens: 80_000 });
    // Sonnet $3/MTok: 80,000 reads save 0.9·3 µ$ each = 216,000 µ$, 10,000 5-minute writes cost 0.25·3 extra = 7,500 µ$.
    expect(con.savedMicros).toBe('208500');
    expect(economics.agents.find((a) => a.persona === 'al')).toMatchObject({ hitRate: 0.2, alerting: true });
    expect(economics.breakEvenReads).toEqual({ cacheWrite5m: 1, cacheWrite1h: 2 });
  });

  it('tracks weekly consumption by surface and agent, predicts exhaustion and alerts once at 80%', async () => {
    await h.send(setQuota, { project: 'quota-p', weeklyLimitUsd: '1.00', setBy: 'admin' });
    // Haiku 4.5, 100,000 output tokens = $0.50 per call.
    await h.send(recordUsage, { attribution: at('con', 'qt', 'quota-p', 'cli'), model: 'haiku', tokens: { inputTokens: 0, outputTokens: 100_000 } });
    await h.send(recordUsage, { attribution: at('may', 'qt', 'quota-p', 'web'), model: 'haiku', tokens: { inputTokens: 0, outputTokens: 60_000 } });
    await h.send(recordUsage, { attribution: at('may', 'qt', 'quota-p', 'web'), model: 'haiku', tokens: { inputTokens: 0, outputTokens: 10_000 } });
    await h.caughtUp();
    const quota = await h.send(getQuota, { project: 'quota-p' });
    expect(quota).toMatchObject({ weeklyLimitMicros: '1000000', consumedMicros: '850000', utilisation: 0.85 });
    expect(quota.bySurface).toEqual([{ surface: 'cli', costMicros: '500000' }, { surface: 'web', costMicros: '350000' }]);
    expect(quota.byAgent).toEqual([{ persona: 'con', costMicros: '500000' }, { persona: 'may', costMicros: '350000' }]);
    expect(BigInt(quota.runRateMicrosPerHour)).toBeGreaterThan(0n);
    expect(Date.parse(quota.predictedExhaustionAt!)).toBeGreaterThan(Date.now() - 1_000);
    const alerts = (await events('quota.alert')).filter((a) => a.source === 'weekly-quota');
    expect(alerts.map((a) => [a.project, a.utilisation])).toEqual([['quota-p', 0.8]]);
  });

  it('records SDK rate-limit status and alerts once per reset window at 80% utilisation', async () => {
    const info = (utilization: number) => ({ status: 'allowed_warning' as const, rateLimitType: 'seven_day', utilization, resetsAt: '2026-12-01T00:00:00.000Z', isUsingOverage: false });
    expect((await h.send(recordRateLimit, { project: 'quota-p', persona: 'con', surface: 'cli', info: info(0.5) })).alerted).toBe(false);
    expect((await h.send(recordRateLimit, { project: 'quota-p', persona: 'con', surface: 'cli', info: info(0.82) })).alerted).toBe(true);
    expect((await h.send(recordRateLimit, { project: 'quota-p', persona: 'con', surface: 'cli', info: info(0.9) })).alerted).toBe(false);
    await h.caughtUp();
    expect((await h.send(getQuota, { project: 'quota-p' })).lastRateLimit).toMatchObject({ utilization: 0.9, resetsAt: '2026-12-01T00:00:00.000Z' });
    expect((await events('quota.alert')).filter((a) => a.source === 'rate-limit')).toHaveLength(1);
  });

  it('exports ccusage-like daily rows and spend by model', async () => {
    const { rows } = await h.send(exportUsage, { project: 'quota-p' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ modelsUsed: ['claude-haiku-4-5-20251001'], outputTokens: 170_000, totalTokens: 170_000, totalCost: 0.85 });
    const byModel = await h.send(getSpend, { groupBy: 'model', team: 'cachers' });
    expect(byModel.groups).toEqual([expect.objectContaining({ key: 'claude-sonnet-4-6', calls: 3 })]);
  });
});
