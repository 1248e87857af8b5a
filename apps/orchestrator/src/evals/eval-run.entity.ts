import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { EvalRunView } from '@headspace/contracts';

/** A row of the eval runs read model (eval-runs.projection.ts writes it; migrations/0010_evals.sql creates it). */
export const EvalRunRow = defineEntity({
  name: 'EvalRunRow',
  tableName: 'eval_runs',
  properties: {
    evalRunId: p.text().primary(),
    team: p.text(),
    status: p.text().$type<EvalRunView['status']>(),
    suite: p.text(),
    model: p.text().nullable(),
    score: p.double().nullable(),
    passed: p.integer(),
    total: p.integer(),
    startedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});
export type EvalRunRow = InferEntity<typeof EvalRunRow>;
