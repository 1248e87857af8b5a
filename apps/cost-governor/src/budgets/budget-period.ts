import type { BudgetPeriod } from '@headspace/contracts';

/** The start (UTC) of the period containing `at`: midnight, Monday midnight, the 1st of the month; epoch for `none`. */
export function periodStartOf(period: BudgetPeriod, at: Date): string {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  switch (period) {
    case 'none':
      return new Date(0).toISOString();
    case 'day':
      return new Date(day).toISOString();
    case 'week':
      return new Date(day - ((at.getUTCDay() + 6) % 7) * 86_400_000).toISOString();
    case 'month':
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString();
  }
}
