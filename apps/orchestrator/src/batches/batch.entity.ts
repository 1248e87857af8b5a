import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { BatchView } from '@headspace/contracts';

/** A row of the batches read model (batches.projection.ts writes it; migrations/0006_batches.sql creates it). */
export const BatchRow = defineEntity({
  name: 'BatchRow',
  tableName: 'batches',
  properties: {
    batchId: p.text().primary(),
    team: p.text(),
    status: p.text().$type<BatchView['status']>(),
    providerBatchId: p.text().nullable(),
    simulated: p.boolean(),
    items: p.integer(),
    costUsd: p.text().nullable(),
    submittedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});
export type BatchRow = InferEntity<typeof BatchRow>;
