import { Inject, Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, listRuns, type RunView } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { z } from 'zod';

interface RunRow {
  run_id: string;
  team: string;
  title: string;
  phase: RunView['phase'];
  mode: RunView['mode'];
  verdict: string | null;
  started_at: Date;
  ended_at: Date | null;
}

/** The cursor is the last row's (started_at, run_id), opaque to callers. */
const encodeCursor = (row: RunRow) => Buffer.from(JSON.stringify([row.started_at.toISOString(), row.run_id])).toString('base64url');

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && !Number.isNaN(Date.parse(value[0]))) return [value[0], value[1]];
  } catch {
    // falls through to the refusal
  }
  throw new HeadspaceError(ErrorCodes.validationFailed, 'cursor: not a cursor this list returned', { field: 'cursor' });
}

/** `hs.qry.orchestrator.list-runs`: the runs projection, newest first, keyset-paged. */
@Controller()
export class ListRunsHandler {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  @MessagePattern(listRuns)
  async handle({ team, limit, cursor }: z.output<typeof listRuns.request>) {
    const after = cursor ? decodeCursor(cursor) : null;
    const { rows } = await this.pool.query<RunRow>(
      `SELECT run_id, team, title, phase, mode, verdict, started_at, ended_at FROM ${this.q}.runs
       WHERE ($1::text IS NULL OR team = $1) AND ($2::timestamptz IS NULL OR (started_at, run_id) < ($2::timestamptz, $3::text))
       ORDER BY started_at DESC, run_id DESC LIMIT $4`,
      [team ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
    );
    const page = rows.slice(0, limit);
    return {
      runs: page.map((r) => ({
        runId: r.run_id,
        team: r.team,
        title: r.title,
        phase: r.phase,
        mode: r.mode,
        verdict: r.verdict,
        startedAt: r.started_at.toISOString(),
        endedAt: r.ended_at?.toISOString() ?? null,
      })),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null,
    };
  }
}
