import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, getRun, listRuns } from '@headspace/contracts';
import { EventStore, quoteIdent } from '@headspace/event-store';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { RunRecorder } from '../run-recorder';
import { runView } from '../run-view';

/**
 * `get-run` folds the run's stream (always current, a run has hundreds of events at most) and adds
 * each running session's last activity; `list-runs` reads the runs projection.
 */
@Injectable()
export class GetRunHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private servers: RequestServer[] = [];
  private readonly q: string;

  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  onApplicationBootstrap(): void {
    this.servers = [
      serveRequests(this.nc, getRun, async ({ runId }) => {
        const state = (await RunRecorder.load(this.store, runId)).state;
        if (!state.started) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${runId}"`, { field: 'runId' });
        const { rows } = await this.pool.query<{ session_id: string; last_activity: string | null }>(
          `SELECT session_id, last_activity FROM ${this.q}.agent_sessions WHERE run_id = $1 AND status = 'running'`,
          [runId],
        );
        return runView(state, Object.fromEntries(rows.map((r) => [r.session_id, r.last_activity ?? undefined])));
      }),
      serveRequests(this.nc, listRuns, async ({ team, limit }) => {
        const { rows } = await this.pool.query<{ run_id: string; team: string; title: string; phase: string; mode: string; verdict: string | null; started_at: Date; ended_at: Date | null }>(
          `SELECT * FROM ${this.q}.runs WHERE ($1::text IS NULL OR team = $1) ORDER BY started_at DESC LIMIT $2`,
          [team ?? null, limit],
        );
        return {
          runs: rows.map((r) => ({
            runId: r.run_id,
            team: r.team,
            title: r.title,
            phase: r.phase as never,
            mode: r.mode as never,
            verdict: r.verdict,
            startedAt: r.started_at.toISOString(),
            endedAt: r.ended_at?.toISOString() ?? null,
          })),
        };
      }),
    ];
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }
}
