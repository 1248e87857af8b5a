import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { runPhases } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import { CachedGauge, meter } from '@headspace/telemetry';
import type { Pool } from 'pg';

const runsActive = meter.createObservableGauge('headspace.orchestrator.runs.active', { description: 'Runs not ended, by phase (from the runs read model)' });

/** The phases of a run that has not ended: each is observed, at 0 when no run is in it. */
export const activeRunPhases = runPhases.filter((phase) => phase !== 'completed' && phase !== 'failed');

/** How old the counts may be before a collection reads the runs read model again. */
export const RUNS_ACTIVE_MAX_AGE_MS = 5_000;

/** `headspace.orchestrator.runs.active`: runs by phase, one grouped count of the unended runs (partial index runs_active) per RUNS_ACTIVE_MAX_AGE_MS at most. */
@Injectable()
export class RunsActiveGauge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly gauge: CachedGauge;

  constructor(@Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) schema: string) {
    this.gauge = new CachedGauge({
      gauge: runsActive,
      label: 'runs-active-gauge',
      maxAgeMs: RUNS_ACTIVE_MAX_AGE_MS,
      read: async () => {
        const { rows } = await pool.query<{ phase: string; n: number }>(
          `SELECT phase, count(*)::int AS n FROM ${quoteIdent(schema)}.runs WHERE ended_at IS NULL GROUP BY phase`,
        );
        const byPhase = new Map(rows.map((r) => [r.phase, r.n]));
        return activeRunPhases.map((phase) => ({ value: byPhase.get(phase) ?? 0, attributes: { phase } }));
      },
    });
  }

  onApplicationBootstrap(): void {
    this.gauge.start();
  }

  onApplicationShutdown(): void {
    this.gauge.stop();
  }
}
