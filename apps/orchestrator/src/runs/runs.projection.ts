import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { runEvents, runStreamId } from '@headspace/contracts';
import { EventStore, ProcessorRunner, foldEvents, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';
import { runDecider, type RunEvent } from './run.decider';

/**
 * The runs list: one row per run with its phase, kept by folding the run's stream (read in the
 * projection's own transaction, so it is as of the batch) on each of its events.
 */
@Injectable()
export class RunsProjection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly runner: ProcessorRunner;
  private readonly logger = new Logger(RunsProjection.name);
  private readonly q: string;

  constructor(@Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) schema: string, private readonly store: EventStore) {
    this.q = quoteIdent(schema);
    this.runner = new ProcessorRunner({
      pool,
      schema,
      name: 'runs',
      types: runEvents.map((e) => e.type),
      handle: (events, tx) => this.handle(events, tx),
      reset: async (tx) => {
        await tx.query(`TRUNCATE ${this.q}.runs`);
      },
      onError: (error) => this.logger.error(`runs: ${(error as Error).message}`),
    });
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  private async handle(events: RecordedEvent[], tx: PoolClient): Promise<void> {
    const runIds = [...new Set(events.map((e) => String((e.data as { runId: string }).runId)))];
    for (const runId of runIds) {
      const recorded = (await this.store.readStream(runStreamId(runId), { client: tx })) as Array<RecordedEvent & RunEvent>;
      const state = foldEvents(runDecider, recorded.map(({ type, data }) => ({ type, data }) as RunEvent));
      const s = state.started;
      if (!s) continue;
      const leases = Object.values(state.sessions).filter((x) => x.leaseId && !x.released).length;
      await tx.query(
        `INSERT INTO ${this.q}.runs (run_id, team, title, mode, phase, verdict, leases_held, started_at, updated_at, ended_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9)
         ON CONFLICT (run_id) DO UPDATE SET phase = EXCLUDED.phase, verdict = EXCLUDED.verdict, leases_held = EXCLUDED.leases_held, updated_at = now(), ended_at = EXCLUDED.ended_at`,
        [runId, s.team, s.title, s.mode, state.phase, state.result?.verdict ?? null, leases, s.startedAt, state.endedAt ?? null],
      );
    }
  }
}
