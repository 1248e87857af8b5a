import type { ModelPrice, PriceTable } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { RetirementLog, retirementWarning, retirementWarnings } from './model-retirement';

const row = (id: string, retiresOn?: string, effectiveFrom = '2025-01-01'): ModelPrice => ({
  id,
  tier: 'sonnet',
  aliases: [],
  effectiveFrom,
  inputPerMTok: 3,
  outputPerMTok: 15,
  ...(retiresOn ? { retiresOn } : {}),
});
const day = (iso: string) => new Date(`${iso}T12:00:00Z`);

describe('a model’s retirement warning', () => {
  it('warns within the window, counting whole UTC days to the retirement date', () => {
    expect(retirementWarning(row('claude-sonnet-4-5-20250929', '2026-11-30'), day('2026-11-26'), 60)).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      retiresOn: '2026-11-30',
      daysLeft: 4,
      message: 'claude-sonnet-4-5-20250929 retires on 2026-11-30 (in 4 days): move to a current model',
    });
    expect(retirementWarning(row('m', '2026-11-30'), day('2026-10-01'), 60)?.daysLeft).toBe(60);
  });

  it('is silent outside the window and for a model without a retirement date', () => {
    expect(retirementWarning(row('m', '2026-11-30'), day('2026-09-30'), 60)).toBeUndefined();
    expect(retirementWarning(row('m', '2026-11-30'), day('2026-11-26'), 3)).toBeUndefined();
    expect(retirementWarning(row('m'), day('2026-11-26'), 10_000)).toBeUndefined();
  });

  it('says a model is retired from its retirement day on', () => {
    expect(retirementWarning(row('claude-mythos-preview', '2026-06-30'), day('2026-06-30'), 60)).toMatchObject({
      daysLeft: 0,
      message: 'claude-mythos-preview was retired on 2026-06-30: requests to it fail',
    });
    expect(retirementWarning(row('claude-mythos-preview', '2026-06-30'), day('2026-11-26'), 60)?.daysLeft).toBe(-149);
  });
});

describe('the retirement warnings of a table', () => {
  const table: PriceTable = {
    version: 1,
    currency: 'USD',
    multipliers: { cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, batch: 0.5 },
    models: [
      row('later', '2026-12-20'),
      row('sooner', '2026-12-01'),
      row('current'),
      // The newest row of an id decides: this one's date was lifted.
      row('extended', '2026-12-02'),
      row('extended', undefined, '2026-06-01'),
    ],
  };

  it('lists the warned models soonest first, taking the newest row of each id', () => {
    expect(retirementWarnings(table, day('2026-11-26'), 30).map((w) => [w.model, w.daysLeft])).toEqual([
      ['sooner', 5],
      ['later', 24],
    ]);
  });
});

describe('the retirement log', () => {
  it('writes a model’s warning once, however often it is used', () => {
    const lines: string[] = [];
    const log = new RetirementLog((line) => lines.push(line));
    const warning = retirementWarning(row('claude-sonnet-4-5-20250929', '2026-11-30'), day('2026-11-26'), 60);
    log.note(warning);
    log.note(warning);
    log.note(undefined);
    log.note(retirementWarning(row('other', '2026-12-01'), day('2026-11-26'), 60));
    expect(lines).toEqual([warning!.message, 'other retires on 2026-12-01 (in 5 days): move to a current model']);
  });
});
