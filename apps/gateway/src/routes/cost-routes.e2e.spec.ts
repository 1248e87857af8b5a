import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/** The cost-governor's prices, budgets and reports through HTTP, with the real cost-governor behind. */
describe('cost routes', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwcost', teamManager: false, costGovernor: true });
  });
  afterAll(async () => h?.close());

  it('serves the price table', async () => {
    const res = await h.call({ method: 'GET', url: '/api/v1/prices' }, h.adminToken);
    expect(res.statusCode).toBe(200);
    expect(res.json().table.version).toEqual(expect.any(Number));
  });

  it('an admin sets a team budget and reads it back', async () => {
    const set = await h.call(
      { method: 'PUT', url: '/api/v1/budgets', payload: { scope: { kind: 'team', team: 'alpha' }, limitUsd: 5, setBy: 'ops' } },
      h.adminToken,
    );
    expect(set.statusCode).toBe(200);
    expect(set.json().budgetId).toBe('team.alpha');
    const budget = await waitFor(async () => {
      const res = await h.call({ method: 'GET', url: '/api/v1/budgets/team.alpha' }, h.adminToken);
      return res.statusCode === 200 ? res.json() : undefined;
    });
    expect(budget).toMatchObject({ budgetId: 'team.alpha' });
    const byTeam = await h.call({ method: 'GET', url: '/api/v1/budgets?team=alpha' }, h.adminToken);
    expect(byTeam.json()).toMatchObject({ budgetId: 'team.alpha' });
  });

  it('summarises usage by persona by default', async () => {
    const res = await h.call({ method: 'GET', url: '/api/v1/usage?team=alpha' }, h.adminToken);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ groups: expect.any(Array), total: expect.objectContaining({ calls: expect.any(Number) }) });
  });

  it('a team-scoped token reads reports of its own team only', async () => {
    const alpha = await h.issueToken('viewer', ['alpha']);
    expect((await h.call({ method: 'GET', url: '/api/v1/usage/spend?groupBy=team&team=alpha' }, alpha)).statusCode).toBe(200);
    expect((await h.call({ method: 'GET', url: '/api/v1/usage/spend?groupBy=team' }, alpha)).statusCode).toBe(403);
    expect((await h.call({ method: 'GET', url: '/api/v1/usage/spend?groupBy=team&team=beta' }, alpha)).statusCode).toBe(403);
    expect((await h.call({ method: 'GET', url: '/api/v1/budgets/team.beta' }, alpha)).statusCode).toBe(403);
  });
});
