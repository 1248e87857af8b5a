import { Injectable } from '@nestjs/common';
import { runEvents, runStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import { runDecider, type RunEvent } from './run.decider';

/**
 * The runs list: one row per run with its phase, kept by folding the run's stream (read in the
 * projection's own transaction, so it is as of the batch) on each of its events.
 */
@Injectable()
export class RunsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'runs', types: runEvents.map((e) => e.type), tables: ['runs'] });
  }

  /** One row per run of the batch, however many of its events the batch holds. */
  protected override async handle(events: RecordedEvent[], tx: PoolClient): Promise<void> {
    const runIds = [...new Set(events.map((e) => String((e.data as { runId: string }).runId)))];
    for (const runId of runIds) await this.upsert(runId, tx);
  }

  protected apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    return this.upsert(String((event.data as { runId: string }).runId), tx);
  }

  private async upsert(runId: string, tx: PoolClient): Promise<void> {
    const recorded = (await this.store.readStream(runStreamId(runId), { client: tx })) as Array<RecordedEvent & RunEvent>;
    const state = foldEvents(runDecider, recorded.map(({ type, data }) => ({ type, data }) as RunEvent));
    const s = state.started;
    if (!s) return;
    const leases = Object.values(state.sessions).filter((x) => x.leaseId && !x.released).length;
    // updated_at: when the run's last event was recorded, not the clock, so a rebuild writes the same row.
    const updatedAt = recorded[recorded.length - 1].recordedAt;
    await tx.query(
      `INSERT INTO ${this.q}.runs (run_id, team, title, mode, phase, verdict, leases_held, started_at, updated_at, ended_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (run_id) DO UPDATE SET phase = EXCLUDED.phase, verdict = EXCLUDED.verdict, leases_held = EXCLUDED.leases_held,
         updated_at = EXCLUDED.updated_at, ended_at = EXCLUDED.ended_at`,
      [runId, s.team, s.title, s.mode, state.phase, state.result?.verdict ?? null, leases, s.startedAt, updatedAt, state.endedAt ?? null],
    );
  }
}
