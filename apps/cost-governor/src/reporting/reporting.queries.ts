import { Inject, Injectable } from '@nestjs/common';
import { microsToUsd, type PriceTable } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import { ledgerWhere, TOTALS_SQL, toTotals, type TotalsRow } from './ledger-filters';

type Filters = Parameters<typeof ledgerWhere>[0];

const GROUP_COLUMNS = {
  task: `coalesce(task_id, '(none)')`,
  session: 'session_id',
  persona: 'persona',
  team: 'team',
  project: 'project',
  surface: 'surface',
  model: 'model',
  tier: 'tier',
  day: `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
} as const;

/** Reporting over the usage ledger projection: sums are taken in PostgreSQL on integer micro-dollars. */
@Injectable()
export class ReportingQueries {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  async spend(filters: Filters, groupBy: keyof typeof GROUP_COLUMNS) {
    const where = ledgerWhere(filters);
    const column = GROUP_COLUMNS[groupBy];
    const { rows } = await this.pool.query<TotalsRow & { key: string }>(
      `SELECT ${column} AS key, ${TOTALS_SQL} FROM ${this.q}.usage_ledger ${where.sql} GROUP BY 1 ORDER BY sum(cost_micros) DESC, 1`,
      where.params,
    );
    const [total] = (await this.pool.query<TotalsRow>(`SELECT ${TOTALS_SQL} FROM ${this.q}.usage_ledger ${where.sql}`, where.params)).rows;
    return { groups: rows.map((row) => ({ key: row.key, ...toTotals(row, microsToUsd) })), total: toTotals(total, microsToUsd) };
  }

  async taskCost(taskId: string) {
    const [row] = (await this.pool.query<TotalsRow>(`SELECT ${TOTALS_SQL} FROM ${this.q}.usage_ledger WHERE task_id = $1`, [taskId])).rows;
    return { taskId, ...toTotals(row, microsToUsd) };
  }

  async tierDistribution(filters: Filters) {
    const where = ledgerWhere(filters);
    const { rows } = await this.pool.query<{ tier: 'haiku' | 'sonnet' | 'opus'; calls: number; cost_micros: string }>(
      `SELECT tier, count(*)::int AS calls, sum(cost_micros)::text AS cost_micros FROM ${this.q}.usage_ledger ${where.sql} GROUP BY tier ORDER BY tier`,
      where.params,
    );
    const calls = rows.reduce((sum, r) => sum + r.calls, 0);
    return { tiers: rows.map((r) => ({ tier: r.tier, calls: r.calls, costMicros: r.cost_micros, share: calls ? r.calls / calls : 0 })) };
  }

  async exportRows(filters: Filters) {
    const where = ledgerWhere(filters);
    const { rows } = await this.pool.query<{ date: string; models: string[]; input: string; output: string; cw: string; cr: string; cost: string }>(
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, array_agg(DISTINCT model ORDER BY model) AS models,
              sum(input_tokens)::text AS input, sum(output_tokens)::text AS output, sum(cache_write_5m + cache_write_1h)::text AS cw,
              sum(cache_read_tokens)::text AS cr, sum(cost_micros)::text AS cost
         FROM ${this.q}.usage_ledger ${where.sql} GROUP BY 1 ORDER BY 1`,
      where.params,
    );
    return {
      rows: rows.map((r) => {
        const [input, output, cw, cr] = [r.input, r.output, r.cw, r.cr].map(Number);
        return { date: r.date, modelsUsed: r.models, inputTokens: input, outputTokens: output, cacheCreationTokens: cw, cacheReadTokens: cr, totalTokens: input + output + cw + cr, totalCost: Number(r.cost) / 1e6 };
      }),
    };
  }

  /**
   * Per agent of a team: hit rate = cache reads / all prompt tokens; saved = what the reads would
   * have cost as input minus their read price minus the write premium, on each row's own model rate.
   */
  async cacheEconomics(team: string, table: PriceTable, alerting: Set<string>) {
    const { rows } = await this.pool.query<{ persona: string; model: string; input: string; w5: string; w1: string; cr: string }>(
      `SELECT persona, model, sum(input_tokens)::text AS input, sum(cache_write_5m)::text AS w5, sum(cache_write_1h)::text AS w1, sum(cache_read_tokens)::text AS cr
         FROM ${this.q}.usage_ledger WHERE team = $1 GROUP BY persona, model`,
      [team],
    );
    const m = table.multipliers;
    const rate = (model: string) => table.models.find((x) => x.id === model)?.inputPerMTok ?? 0;
    const agents = new Map<string, { input: number; write: number; read: number; saved: number }>();
    for (const r of rows) {
      const a = agents.get(r.persona) ?? { input: 0, write: 0, read: 0, saved: 0 };
      const [input, w5, w1, cr] = [r.input, r.w5, r.w1, r.cr].map(Number);
      a.input += input;
      a.write += w5 + w1;
      a.read += cr;
      a.saved += rate(r.model) * (cr * (1 - m.cacheRead) - w5 * (m.cacheWrite5m - 1) - w1 * (m.cacheWrite1h - 1));
      agents.set(r.persona, a);
    }
    const hit = (a: { input: number; write: number; read: number }) => (a.input + a.write + a.read ? a.read / (a.input + a.write + a.read) : 0);
    const all = [...agents.values()].reduce((s, a) => ({ input: s.input + a.input, write: s.write + a.write, read: s.read + a.read, saved: s.saved + a.saved }), { input: 0, write: 0, read: 0, saved: 0 });
    // Reads needed before a write pays for itself: (multiplier − 1) / (1 − read multiplier), rounded up.
    const breakEven = (mult: number) => Math.ceil((mult - 1) / (1 - m.cacheRead) - 1e-9);
    return {
      team: { hitRate: hit(all), savedMicros: Math.round(all.saved).toString() },
      agents: [...agents.entries()].map(([persona, a]) => ({
        persona,
        hitRate: hit(a),
        cacheReadTokens: a.read,
        cacheWriteTokens: a.write,
        inputTokens: a.input,
        savedMicros: Math.round(a.saved).toString(),
        alerting: alerting.has(persona),
      })),
      breakEvenReads: { cacheWrite5m: breakEven(m.cacheWrite5m), cacheWrite1h: breakEven(m.cacheWrite1h) },
    };
  }

  async alertingAgents(team: string): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ persona: string }>(`SELECT persona FROM ${this.q}.cache_stats WHERE team = $1 AND alerting`, [team]);
    return new Set(rows.map((r) => r.persona));
  }
}
