import { Inject, Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, getRun } from '@headspace/contracts';
import { EventStore, quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { RunRecorder } from '../run-recorder';
import { runView } from '../run-view';

/**
 * `hs.qry.orchestrator.get-run`: folds the run's stream (always current; a run has hundreds of
 * events at most) and adds each running session's last activity from the agent-sessions projection.
 */
@Controller()
export class GetRunHandler {
  private readonly q: string;

  constructor(
    private readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  @MessagePattern(getRun)
  async handle({ runId }: z.output<typeof getRun.request>) {
    const state = (await RunRecorder.load(this.store, runId)).state;
    if (!state.started) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${runId}"`, { field: 'runId' });
    const { rows } = await this.pool.query<{ session_id: string; last_activity: string | null }>(
      `SELECT session_id, last_activity FROM ${this.q}.agent_sessions WHERE run_id = $1 AND status = 'running'`,
      [runId],
    );
    return runView(state, Object.fromEntries(rows.map((r) => [r.session_id, r.last_activity ?? undefined])));
  }
}
