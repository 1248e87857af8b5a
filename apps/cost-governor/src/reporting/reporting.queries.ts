import { Injectable } from '@nestjs/common';
import { raw } from '@mikro-orm/postgresql';
import { microsToUsd, type PriceTable } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import { ledgerFilter, TOTALS_SQL, toTotals, type TotalsRow } from './ledger-filters';
import { CacheStatRow, UsageLedgerRow } from './usage-ledger.entity';

type Filters = Parameters<typeof ledgerFilter>[0];

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
  constructor(private readonly reads: ReadModel) {}

  /** Aggregates over the ledger rows the filter selects; the sums stay SQL (text, never Number). */
  private ledger(filter: Filters | { taskId: string }) {
    return this.reads.em().createQueryBuilder(UsageLedgerRow).where('taskId' in filter ? { taskId: filter.taskId } : ledgerFilter(filter));
  }

  async spend(filters: Filters, groupBy: keyof typeof GROUP_COLUMNS) {
    const column = GROUP_COLUMNS[groupBy];
    const [rows, [total]] = await Promise.all([
      this.ledger(filters).select([raw(`${column} AS key, ${TOTALS_SQL}`)]).groupBy(raw('1')).orderBy([{ [raw('sum(cost_micros)')]: 'desc' }, { [raw('1')]: 'asc' }]).execute<(TotalsRow & { key: string })[]>('all', false),
      this.ledger(filters).select([raw(TOTALS_SQL)]).execute<TotalsRow[]>('all', false),
    ]);
    return { groups: rows.map((row) => ({ key: row.key, ...toTotals(row, microsToUsd) })), total: toTotals(total, microsToUsd) };
  }

  async taskCost(taskId: string) {
    const [row] = await this.ledger({ taskId }).select([raw(TOTALS_SQL)]).execute<TotalsRow[]>('all', false);
    return { taskId, ...toTotals(row, microsToUsd) };
  }

  async tierDistribution(filters: Filters) {
    const rows = await this.ledger(filters)
      .select(['tier', raw('count(*)::int AS calls, sum(cost_micros)::text AS cost_micros')])
      .groupBy('tier')
      .orderBy({ tier: 'asc' })
      .execute<{ tier: 'haiku' | 'sonnet' | 'opus'; calls: number; cost_micros: string }[]>('all', false);
    const calls = rows.reduce((sum, r) => sum + r.calls, 0);
    return { tiers: rows.map((r) => ({ tier: r.tier, calls: r.calls, costMicros: r.cost_micros, share: calls ? r.calls / calls : 0 })) };
  }

  async exportRows(filters: Filters) {
    const rows = await this.ledger(filters)
      .select([
        raw(`to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, array_agg(DISTINCT model ORDER BY model) AS models,
             sum(input_tokens)::text AS input, sum(output_tokens)::text AS output, sum(cache_write_5m + cache_write_1h)::text AS cw,
             sum(cache_read_tokens)::text AS cr, sum(cost_micros)::text AS cost`),
      ])
      .groupBy(raw('1'))
      .orderBy({ [raw('1')]: 'asc' })
      .execute<{ date: string; models: string[]; input: string; output: string; cw: string; cr: string; cost: string }[]>('all', false);
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
    const rows = await this.ledger({ team })
      .select(['persona', 'model', raw('sum(input_tokens)::text AS input, sum(cache_write_5m)::text AS w5, sum(cache_write_1h)::text AS w1, sum(cache_read_tokens)::text AS cr')])
      .groupBy(['persona', 'model'])
      .execute<{ persona: string; model: string; input: string; w5: string; w1: string; cr: string }[]>('all', false);
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
    const rows = await this.reads.em().find(CacheStatRow, { team, alerting: true }, { fields: ['persona'] });
    return new Set(rows.map((r) => r.persona));
  }
}
