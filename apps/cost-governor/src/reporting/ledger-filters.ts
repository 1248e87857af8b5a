import type { QBFilterQuery } from '@mikro-orm/postgresql';
import type { UsageLedgerRow } from './usage-ledger.entity';

/** The usage-ledger rows the shared reporting filters select. */
export function ledgerFilter(f: { team?: string; project?: string; sessionId?: string; persona?: string; from?: string; to?: string }): QBFilterQuery<UsageLedgerRow> {
  const { team, project, sessionId, persona, from, to } = f;
  return {
    ...(team ? { team } : {}),
    ...(project ? { project } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(persona ? { persona } : {}),
    ...(from || to ? { occurredAt: { ...(from ? { $gte: new Date(from) } : {}), ...(to ? { $lt: new Date(to) } : {}) } } : {}),
  };
}

export const TOTALS_SQL = `count(*)::int AS calls,
  coalesce(sum(input_tokens), 0)::text AS input_tokens,
  coalesce(sum(output_tokens), 0)::text AS output_tokens,
  coalesce(sum(cache_write_5m + cache_write_1h), 0)::text AS cache_write_tokens,
  coalesce(sum(cache_read_tokens), 0)::text AS cache_read_tokens,
  coalesce(sum(cost_micros), 0)::text AS cost_micros`;

export interface TotalsRow {
  calls: number;
  input_tokens: string;
  output_tokens: string;
  cache_write_tokens: string;
  cache_read_tokens: string;
  cost_micros: string;
}

export function toTotals(row: TotalsRow, usd: (micros: string) => string) {
  return {
    calls: row.calls,
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    costMicros: row.cost_micros,
    costUsd: usd(row.cost_micros),
  };
}
