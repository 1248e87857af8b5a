import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { schemaOf, type ServiceName } from '../../libs/contracts/src/messages/service-names';
import type { SentCommand } from './load';
import { REPO } from './services';

export interface ProjectionTables {
  service: ServiceName;
  schema: string;
  /** The processor's name: its checkpoint row. */
  processor: string;
  tables: string[];
}

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, suffix);
    return name.endsWith(suffix) ? [path] : [];
  });
}

/**
 * Every read model of every service, read from its declaration (`super(store, { name, …, tables })`
 * in apps/<service>/src/**\/*.projection.ts), so a projection added later is rebuilt here too.
 */
export function declaredProjections(): ProjectionTables[] {
  const services: ServiceName[] = ['team-manager', 'orchestrator', 'cost-governor', 'ops-leon', 'gateway'];
  return services.flatMap((service) =>
    filesUnder(join(REPO, 'apps', service, 'src'), '.projection.ts').flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      if (!/extends Projection\b/.test(source)) return [];
      const declaration = source.slice(source.indexOf('super(store'));
      const processor = /name:\s*'([^']+)'/.exec(declaration)?.[1];
      const tables = /tables:\s*\[([^\]]*)\]/.exec(declaration)?.[1];
      if (!processor || !tables) throw new Error(`cannot read the projection declaration in ${file}`);
      return [{ service, schema: schemaOf(service), processor, tables: [...tables.matchAll(/'([^']+)'/g)].map((m) => m[1]) }];
    }),
  );
}

export type Contents = Record<string, string[]>;

/** Every row of every projection table, as JSON text, sorted (row order is not part of a table). */
export async function projectionContents(pool: Pool, projections: ProjectionTables[]): Promise<Contents> {
  const contents: Contents = {};
  for (const p of projections) {
    for (const table of p.tables) {
      const { rows } = await pool.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM "${p.schema}"."${table}" t`);
      contents[`${p.schema}.${table}`] = rows.map((r) => r.row).sort();
    }
  }
  return contents;
}

/** The last position of each service's log (schema → `transaction id:global position`), to see whether anything was appended between two moments. */
export async function logHeads(pool: Pool, projections: ProjectionTables[]): Promise<Record<string, string>> {
  const heads: Record<string, string> = {};
  for (const schema of new Set(projections.map((p) => p.schema))) {
    const { rows } = await pool.query<{ head: string | null }>(
      `SELECT transaction_id::text || ':' || global_position AS head FROM "${schema}".events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
    );
    heads[schema] = rows[0]?.head ?? '0:0';
  }
  return heads;
}

/**
 * The projections whose stored checkpoint has not reached the end of their service's log. A typed
 * projection stores how far its idle looks skipped when it renews its lease, so in a quiet system
 * every checkpoint reaches the end within a lease renewal; until then its tables may miss events.
 */
export async function projectionsBehind(pool: Pool, projections: ProjectionTables[]): Promise<string[]> {
  const behind: string[] = [];
  for (const p of projections) {
    const { rows } = await pool.query<{ behind: boolean }>(
      `SELECT coalesce((SELECT (c.transaction_id, c.global_position) < (e.transaction_id, e.global_position)
                          FROM "${p.schema}".events e ORDER BY e.transaction_id DESC, e.global_position DESC LIMIT 1), false) AS behind
         FROM "${p.schema}".checkpoints c WHERE c.processor = $1`,
      [p.processor],
    );
    if (rows[0]?.behind !== false) behind.push(`${p.schema}/${p.processor}`);
  }
  return behind;
}

/** The runbook's rebuild (deploy/k8s/RUNBOOK.md), with every service stopped: tables emptied, checkpoints gone. */
export async function resetProjections(pool: Pool, projections: ProjectionTables[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const p of projections) {
      await client.query(`TRUNCATE ${p.tables.map((t) => `"${p.schema}"."${t}"`).join(', ')}`);
      await client.query(`DELETE FROM "${p.schema}".checkpoints WHERE processor = $1`, [p.processor]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** Tables whose rebuilt rows differ from the live ones, with the counts. */
export function differences(live: Contents, rebuilt: Contents): string[] {
  return Object.keys(live).flatMap((table) => {
    const a = live[table];
    const b = rebuilt[table] ?? [];
    if (a.length === b.length && a.every((row, i) => row === b[i])) return [];
    // The rows on one side only say which events were applied differently (a row is its table's JSON).
    const onlyLive = a.filter((row) => !b.includes(row)).slice(0, 3);
    const onlyRebuilt = b.filter((row) => !a.includes(row)).slice(0, 3);
    const show = (rows: string[]) => rows.map((row) => (row.length > 400 ? `${row.slice(0, 400)}…` : row)).join(' | ');
    return [`${table}: live ${a.length} rows, rebuilt ${b.length}; only live: ${show(onlyLive) || '-'}; only rebuilt: ${show(onlyRebuilt) || '-'}`];
  });
}

export interface ExactlyOnce {
  acked: number;
  lost: SentCommand[];
  duplicated: Array<{ key: string; count: number }>;
  /** Commands never acknowledged that the log holds anyway (cut off after the write: allowed, once). */
  appliedUnacked: number;
}

const APPLIED: Record<SentCommand['kind'], string> = { 'create-task': 'task.created', 'claim-task': 'task.claimed' };

/** Each command's events in team-manager's log, by the command id its Idempotency-Key became at the gateway. */
export async function exactlyOnce(pool: Pool, sent: SentCommand[], commandIdOf: (key: string) => string): Promise<ExactlyOnce> {
  const keyOf = new Map(sent.map((c) => [commandIdOf(c.key), c.key]));
  const { rows } = await pool.query<{ commandId: string; type: string; n: number }>(
    `SELECT metadata->>'commandId' AS "commandId", type, count(*)::int AS n FROM team_manager.events
      WHERE metadata->>'commandId' = ANY($1) GROUP BY 1, 2`,
    [[...keyOf.keys()]],
  );
  const byKey = new Map(sent.map((c) => [c.key, c]));
  const applied = new Map<string, number>();
  for (const row of rows) {
    const key = keyOf.get(row.commandId)!;
    const command = byKey.get(key);
    if (command && APPLIED[command.kind] === row.type) applied.set(key, row.n);
  }
  return {
    acked: sent.filter((c) => c.acked).length,
    lost: sent.filter((c) => c.acked && !applied.has(c.key)),
    duplicated: [...applied].filter(([, n]) => n > 1).map(([key, count]) => ({ key, count })),
    appliedUnacked: sent.filter((c) => !c.acked && applied.has(c.key)).length,
  };
}
