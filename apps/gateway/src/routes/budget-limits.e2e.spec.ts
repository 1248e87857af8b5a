import { maySpend, recordUsage } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/**
 * USD amounts given through REST are limits in USD, converted to micros once: a budget set over HTTP
 * warns, downgrades and pauses at the amount the operator typed. Usage reaches the governor as the
 * orchestrator sends it, over NATS.
 */
describe('USD amounts through REST', () => {
  let h: GatewayHarness;
  let nc: NatsConnection;
  const attribution = { sessionId: 'sess-con', persona: 'con', team: 'limits', project: 'limits-proj', surface: 'cli' as const };
  // haiku 4.5: 5 µ$ per output token.
  const spendMicros = (micros: number) =>
    request(nc, recordUsage, { attribution, model: 'haiku', tokens: { inputTokens: 0, outputTokens: micros / 5 } }, { timeoutMs: 30_000 });
  const budget = async (budgetId: string, ready: (b: Record<string, unknown>) => boolean) =>
    waitFor(async () => {
      const res = await h.call({ method: 'GET', url: `/api/v1/budgets/${budgetId}` }, h.adminToken);
      return res.statusCode === 200 && ready(res.json()) ? (res.json() as Record<string, unknown>) : undefined;
    });

  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwbudget', teamManager: false, costGovernor: true });
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  });
  afterAll(async () => {
    await nc?.close();
    await h?.close();
  });

  it('a budget set with limitUsd "10.00" warns past 80%, pauses at 95%, and addUsd on approval raises it by that many dollars', async () => {
    const set = await h.call(
      { method: 'PUT', url: '/api/v1/budgets', payload: { scope: { kind: 'team', team: 'limits' }, limitUsd: '10.00', setBy: 'ops' } },
      h.adminToken,
    );
    expect(set.statusCode).toBe(200);
    expect(await budget('team.limits', () => true)).toMatchObject({ limitMicros: '10000000', status: 'active' });

    await spendMicros(8_500_000);
    const downgraded = await request(nc, maySpend, { attribution, signals: { filesAffected: 4 }, estimate: { inputTokens: 10, maxOutputTokens: 10 } });
    expect(downgraded.decision).toBe('allow');
    expect(downgraded.routing.reasons).toContain('Approaching budget limit (80%): sonnet → haiku');
    expect(await budget('team.limits', (b) => b.warned === true)).toMatchObject({ status: 'active', spentMicros: '8500000' });

    await spendMicros(1_000_000);
    const refused = await request(nc, maySpend, { attribution, estimate: { inputTokens: 10, maxOutputTokens: 10 } });
    expect(refused).toMatchObject({ decision: 'paused', code: 'BUDGET.PAUSED' });
    expect(await budget('team.limits', (b) => b.status === 'paused')).toMatchObject({ spentMicros: '9500000', limitMicros: '10000000' });

    const resolved = await h.call(
      { method: 'POST', url: '/api/v1/budgets/team.limits/resolve', payload: { decision: 'approve', addUsd: '1.50', resolvedBy: 'ops' } },
      h.adminToken,
    );
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json().budget).toMatchObject({ status: 'active', limitMicros: '11500000' });
  });

  it('a weekly quota set with weeklyLimitUsd is stored in micros of that many dollars', async () => {
    const set = await h.call(
      { method: 'PUT', url: '/api/v1/projects/limits-proj/quota', payload: { weeklyLimitUsd: 25.5, setBy: 'ops' } },
      h.adminToken,
    );
    expect(set.statusCode).toBe(200);
    const weeklyLimitMicros = await waitFor(async () => {
      const res = await h.call({ method: 'GET', url: '/api/v1/projects/limits-proj/quota' }, h.adminToken);
      return res.statusCode === 200 ? (res.json().weeklyLimitMicros as string | undefined) : undefined;
    });
    expect(weeklyLimitMicros).toBe('25500000');
  });
});
