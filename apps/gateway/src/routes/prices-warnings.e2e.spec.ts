import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/** Retirement warnings reach an operator through the product's HTTP API, with the real cost-governor behind. */
describe('GET /api/v1/prices', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwprices', teamManager: false, costGovernor: true });
  });
  afterAll(async () => h?.close());

  it('lists the shipped table’s retiring models beside the table, and prices the 5-generation models', async () => {
    const res = await h.call({ method: 'GET', url: '/api/v1/prices' }, h.adminToken);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { table: { models: Array<{ id: string; contextWindow?: number; thinking?: string }> }; warnings: unknown[] };
    expect(body.warnings).toEqual(expect.arrayContaining([
      expect.objectContaining({ model: 'claude-sonnet-4-5-20250929', retiresOn: '2026-11-30', daysLeft: expect.any(Number), message: expect.stringContaining('2026-11-30') }),
    ]));
    expect(body.table.models.find((m) => m.id === 'claude-haiku-5-5')).toMatchObject({ contextWindow: 1_000_000, thinking: 'adaptive' });
  });
});
