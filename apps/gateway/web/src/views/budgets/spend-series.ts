import type { StreamEvent } from '../../live/event-stream';

export interface SpendSeries {
  key: string;
  /** Cumulative spend in µ$ after each usage record, oldest first. */
  points: Array<{ t: number; micros: number }>;
}

/** Cumulative spend of one team over time, one series per persona or per model, from `usage.recorded` events. */
export function spendSeries(events: readonly StreamEvent[], team: string, by: 'persona' | 'model'): SpendSeries[] {
  const series = new Map<string, SpendSeries>();
  for (const e of events) {
    if (e.type !== 'usage.recorded') continue;
    const attribution = (e.data.attribution ?? {}) as Record<string, unknown>;
    if (attribution.team !== team) continue;
    const key = String(by === 'persona' ? attribution.persona : e.data.model);
    const s = series.get(key) ?? { key, points: [] };
    const before = s.points.at(-1)?.micros ?? 0;
    s.points.push({ t: Date.parse(e.time), micros: before + Number(e.data.costMicros ?? 0) });
    series.set(key, s);
  }
  return [...series.values()].sort((a, b) => (b.points.at(-1)?.micros ?? 0) - (a.points.at(-1)?.micros ?? 0));
}

/** `team.crew`, `agent.crew.con` → `crew`. */
export const teamOfBudget = (budgetId: unknown): string | undefined => (typeof budgetId === 'string' ? /^(?:team|agent)\.([^.]+)/.exec(budgetId)?.[1] : undefined);
