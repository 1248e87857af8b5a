import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { LoopView } from '@headspace/contracts';

/** A row of the loops read model (loops.projection.ts writes it; migrations/0008_loops.sql creates it). */
export const LoopRow = defineEntity({
  name: 'LoopRow',
  tableName: 'loops',
  properties: {
    loopId: p.text().primary(),
    team: p.text(),
    status: p.text().$type<LoopView['status']>(),
    stopReason: p.text().$type<NonNullable<LoopView['stopReason']>>().nullable(),
    persona: p.text(),
    model: p.text(),
    iterations: p.integer(),
    startedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});
export type LoopRow = InferEntity<typeof LoopRow>;
