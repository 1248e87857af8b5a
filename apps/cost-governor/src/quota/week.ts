import { periodStartOf } from '../budgets/budget-period';

/** Weekly quotas run Monday 00:00 UTC to Monday 00:00 UTC. */
export const weekStartOf = (at: Date) => periodStartOf('week', at);

const HOUR = 3_600_000;

/**
 * Run rate over the elapsed part of the week and when the quota runs out at that rate (seed 003
 * Req 15.2); no prediction without spend or without a limit.
 */
export function predictExhaustion(consumed: bigint, limit: bigint | undefined, weekStart: string, now: Date): { perHour: bigint; at?: string } {
  const elapsedMs = Math.max(now.getTime() - Date.parse(weekStart), 60_000);
  const perHour = (consumed * BigInt(HOUR)) / BigInt(elapsedMs);
  if (limit === undefined || perHour === 0n) return { perHour };
  if (consumed >= limit) return { perHour, at: now.toISOString() };
  const hoursLeft = Number(limit - consumed) / Number(perHour);
  return { perHour, at: new Date(now.getTime() + hoursLeft * HOUR).toISOString() };
}
