import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, listRuns } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { RunRow } from '../run.entity';

/** The cursor is the last row's (started_at, run_id), opaque to callers. */
const encodeCursor = (row: RunRow) => Buffer.from(JSON.stringify([row.startedAt.toISOString(), row.runId])).toString('base64url');

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
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listRuns)
  async handle({ team, limit, cursor }: z.output<typeof listRuns.request>) {
    const after = cursor ? decodeCursor(cursor) : null;
    const rows = await this.reads.rows(
      RunRow,
      {
        ...(team ? { team } : {}),
        ...(after ? { $or: [{ startedAt: { $lt: new Date(after[0]) } }, { startedAt: new Date(after[0]), runId: { $lt: after[1] } }] } : {}),
      },
      { orderBy: [{ startedAt: 'desc' }, { runId: 'desc' }], limit: limit + 1 },
    );
    const page = rows.slice(0, limit);
    return {
      runs: page.map(({ runId, team, title, phase, mode, verdict, startedAt, endedAt }) => ({
        runId,
        team,
        title,
        phase,
        mode,
        verdict,
        startedAt: startedAt.toISOString(),
        endedAt: endedAt?.toISOString() ?? null,
      })),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null,
    };
  }
}
