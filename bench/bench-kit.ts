import { Pool } from 'pg';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { PgClient } from '@headspace/event-store';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  /** Minimum ratio value/baseline the issue asks for. */
  target?: number;
  note?: string;
}

export async function benchDatabase(label: string): Promise<TestDatabase> {
  return createTestDatabase(`bench${label}`);
}

/** Runs `op` `count` times across `clients` parallel lanes; returns operations per second. */
export async function throughput(count: number, clients: number, op: (lane: number, i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, lane) => {
      for (let i = next++; i < count; i = next++) await op(lane, i);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

export const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function printTable(rows: BenchRow[]): void {
  const fmt = (n: number | undefined) => (n === undefined ? '' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));
  const lines = rows.map((r) => {
    const ratio = r.baseline ? r.value / r.baseline : undefined;
    const verdict = r.target === undefined || ratio === undefined ? '' : ratio >= r.target ? 'ok' : 'BELOW TARGET';
    return [r.name, `${fmt(r.value)} ${r.unit}`, r.baseline ? `${fmt(r.baseline)} ${r.unit}` : '', ratio ? `${(ratio * 100).toFixed(0)}%` : '', r.target ? `≥ ${(r.target * 100).toFixed(0)}%` : '', verdict || r.note || ''];
  });
  const header = ['measure', 'headspace', 'raw baseline', 'ratio', 'target', 'verdict / note'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
  console.log(row(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const l of lines) console.log(row(l));
}

export function newPool(url: string, max = 10): Pool {
  const pool = new Pool({ connectionString: url, max, Client: PgClient });
  // Idle clients are cut when a bench drops its database (WITH FORCE): not a reason to crash.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs the subject and its baseline alternately `rounds` times and returns both medians (noise-resistant). */
export async function alternate(rounds: number, subject: () => Promise<number>, baseline: () => Promise<number>): Promise<[number, number]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    a.push(await subject());
    b.push(await baseline());
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return [median(a), median(b)];
}
