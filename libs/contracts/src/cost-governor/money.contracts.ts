import { z } from 'zod';

/**
 * Money crosses the wire as strings: `*Micros` are integer micro-dollars (1 USD = 1,000,000), `*Usd`
 * decimal strings with six places. Sums are taken on the integers, never on floats, so the ledger
 * reconciles to the cent.
 */
export const microsSchema = z.string().regex(/^-?\d+$/, 'must be an integer number of micro-dollars');

/**
 * A USD amount given by a person or a client: a number or decimal string with at most 6 decimals, not
 * negative; parsed, it is micros. Parse it once: its output is itself a valid input meaning 10⁶ times
 * more, so whoever forwards a request sends what it received (the `z.input` form), never the output.
 */
export const usdAmountSchema = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? value.toFixed(6) : value.trim();
    const match = /^(\d{1,12})(?:\.(\d{1,6})0*)?$/.exec(text);
    if (!match) {
      ctx.addIssue({ code: 'custom', message: 'must be a non-negative USD amount with at most 6 decimals' });
      return z.NEVER;
    }
    return (BigInt(match[1]) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'))).toString();
  });

export function microsToUsd(micros: bigint | string): string {
  const value = BigInt(micros);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
}
