import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { RunView } from '@headspace/contracts';

/** A row of the runs read model (runs.projection.ts writes it; migrations/0003_runs.sql creates it). */
export const RunRow = defineEntity({
  name: 'RunRow',
  tableName: 'runs',
  properties: {
    runId: p.text().primary(),
    team: p.text(),
    title: p.text(),
    mode: p.text().$type<RunView['mode']>(),
    phase: p.text().$type<RunView['phase']>(),
    verdict: p.text().nullable(),
    startedAt: p.datetime(),
    updatedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
    leasesHeld: p.integer(),
  },
});
export type RunRow = InferEntity<typeof RunRow>;
