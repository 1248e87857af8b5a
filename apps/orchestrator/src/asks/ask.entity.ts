import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { AskView } from '@headspace/contracts';

/** A row of the asks read model (asks.projection.ts writes it; migrations/0005_asks.sql creates it). */
export const AskRow = defineEntity({
  name: 'AskRow',
  tableName: 'asks',
  properties: {
    askId: p.text().primary(),
    team: p.text(),
    status: p.text().$type<AskView['status']>(),
    persona: p.text(),
    model: p.text(),
    costUsd: p.text().nullable(),
    startedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});
export type AskRow = InferEntity<typeof AskRow>;
