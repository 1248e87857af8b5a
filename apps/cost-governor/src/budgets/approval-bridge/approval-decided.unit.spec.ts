import { describe, expect, it } from 'vitest';
import { addUsdFromReason } from './approval-decided.consumer';

describe('top-up named in an approval reason', () => {
  it.each([
    ['addUsd=1.00', 1_000_000n],
    ['ok, addUsd: $2.5 for the rest of the day', 2_500_000n],
    ['go on +$0.75', 750_000n],
    ['ADDUSD = 3', 3_000_000n],
  ])('reads %s as %s micro-dollars', (reason, micros) => {
    expect(addUsdFromReason(reason)).toBe(micros);
  });

  it.each([[undefined], ['approved'], ['add 5 dollars']])('leaves the proposed top-up in place for %s', (reason) => {
    expect(addUsdFromReason(reason)).toBeUndefined();
  });
});
