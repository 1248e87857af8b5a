import { Logger } from '@nestjs/common';
import { getPrices, routeModel } from '@headspace/contracts';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startCostGovernor, type CostGovernorHarness } from '../testing/cost-governor-harness';

const SONNET_45 = 'claude-sonnet-4-5-20250929'; // retiresOn 2026-11-30 in the shipped table

/** Spies are restored between tests (vitest config), so each test watches the log itself. */
const watchRetirementLog = () => {
  const warn = vi.spyOn(Logger.prototype, 'warn');
  return () => warn.mock.calls.map(([line]) => String(line)).filter((line) => line.startsWith(SONNET_45));
};

describe('retiring models in the running governor', () => {
  let h: CostGovernorHarness;

  afterAll(async () => {
    await h?.close();
  });

  it('logs the shipped table’s retiring model once at start', async () => {
    const lines = watchRetirementLog();
    h = await startCostGovernor('retirement');
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatch(/^claude-sonnet-4-5-20250929 (retires on 2026-11-30 \(in \d+ days?\)|was retired on 2026-11-30)/);
  });

  it('lists it in the prices answer (the API’s GET /api/v1/prices) with its date and days left', async () => {
    const { warnings } = await h.send(getPrices, {});
    expect(warnings).toEqual(expect.arrayContaining([expect.objectContaining({ model: SONNET_45, retiresOn: '2026-11-30', daysLeft: expect.any(Number) })]));
  });

  it('warns in the routing reasons on every use, and logs nothing more for it', async () => {
    const lines = watchRetirementLog();
    for (let i = 0; i < 3; i++) {
      const decision = await h.send(routeModel, { model: 'claude-sonnet-4-5', signals: {} });
      expect(decision.reasons.filter((r) => r.startsWith(`warning: ${SONNET_45}`))).toHaveLength(1);
    }
    const current = await h.send(routeModel, { model: 'sonnet', signals: {} });
    expect(current.reasons.some((r) => r.startsWith('warning:'))).toBe(false);
    expect(lines()).toEqual([]);
  });
});
