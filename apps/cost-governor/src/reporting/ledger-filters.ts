/** WHERE clause over usage_ledger for the shared reporting filters (parameters numbered from 1). */
export function ledgerWhere(f: { team?: string; project?: string; sessionId?: string; persona?: string; from?: string; to?: string }): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    clauses.push(clause.replace('?', `$${params.length}`));
  };
  if (f.team) add('team = ?', f.team);
  if (f.project) add('project = ?', f.project);
  if (f.sessionId) add('session_id = ?', f.sessionId);
  if (f.persona) add('persona = ?', f.persona);
  if (f.from) add('occurred_at >= ?', f.from);
  if (f.to) add('occurred_at < ?', f.to);
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
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
