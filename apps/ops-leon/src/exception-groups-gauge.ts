import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { exceptionSeveritySchema, groupStates } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import { CachedGauge, meter } from '@headspace/telemetry';
import type { Pool } from 'pg';

const exceptionGroups = meter.createObservableGauge('headspace.ops.exception_groups', {
  description: 'Exception groups by severity (untriaged before triage) and lifecycle state (from the groups read model)',
});

/** Every severity label: the triage verdicts, and `untriaged` for groups triage has not reached yet. */
export const groupSeverityLabels = [...exceptionSeveritySchema.options, 'untriaged'] as const;

/** How old the counts may be before a collection reads the groups read model again. */
export const EXCEPTION_GROUPS_MAX_AGE_MS = 10_000;

/**
 * `headspace.ops.exception_groups{severity,state}`: one grouped count of the groups read model per
 * EXCEPTION_GROUPS_MAX_AGE_MS at most, read when metrics are collected. Every severity × state pair
 * is observed (0 when empty), so a drained pair drops to 0 and every pair a dashboard sums exists.
 */
@Injectable()
export class ExceptionGroupsGauge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly gauge: CachedGauge;

  constructor(@Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) schema: string) {
    this.gauge = new CachedGauge({
      gauge: exceptionGroups,
      label: 'exception-groups-gauge',
      maxAgeMs: EXCEPTION_GROUPS_MAX_AGE_MS,
      read: async () => {
        const { rows } = await pool.query<{ severity: string; state: string; n: number }>(
          `SELECT coalesce(severity, 'untriaged') AS severity, state, count(*)::int AS n FROM ${quoteIdent(schema)}.exception_groups GROUP BY 1, 2`,
        );
        const byPair = new Map(rows.map((r) => [`${r.severity}/${r.state}`, r.n]));
        return groupSeverityLabels.flatMap((severity) => groupStates.map((state) => ({ value: byPair.get(`${severity}/${state}`) ?? 0, attributes: { severity, state } })));
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

/** Leon's gauges read at collection time. */
@Module({ providers: [ExceptionGroupsGauge] })
export class OpsMetricsModule {}
