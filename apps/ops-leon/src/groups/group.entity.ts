import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { ExceptionReport } from '@headspace/contracts';

/** A row of the groups read model (groups.projection.ts; migrations/0001_ops_leon.sql). */
export const GroupRow = defineEntity({
  name: 'GroupRow',
  tableName: 'exception_groups',
  properties: {
    groupId: p.text().primary(),
    project: p.text(),
    projectId: p.text(),
    fingerprint: p.text(),
    state: p.text(),
    type: p.text(),
    title: p.text(),
    culprit: p.text(),
    level: p.text(),
    severity: p.text().nullable(),
    domain: p.text().nullable(),
    persona: p.text().nullable(),
    autoFixable: p.boolean().nullable(),
    count: p.bigint('string'),
    firstSeen: p.datetime(),
    lastSeen: p.datetime(),
    releases: p.array(),
    environments: p.array(),
    spikedAt: p.datetime().nullable(),
    updatedAt: p.datetime(),
  },
});
export type GroupRow = InferEntity<typeof GroupRow>;

export const SampleRow = defineEntity({
  name: 'SampleRow',
  tableName: 'exception_samples',
  properties: {
    groupId: p.text().primary(),
    eventId: p.text().primary(),
    seq: p.bigint('string'),
    receivedAt: p.datetime(),
    report: p.json<ExceptionReport>(),
  },
});
export type SampleRow = InferEntity<typeof SampleRow>;

export const TransitionRow = defineEntity({
  name: 'TransitionRow',
  tableName: 'group_transitions',
  properties: {
    groupId: p.text().primary(),
    seq: p.bigint('string').primary(),
    type: p.text(),
    fromState: p.text().nullable(),
    toState: p.text(),
    actor: p.text(),
    reason: p.text().nullable(),
    details: p.json<Record<string, unknown>>(),
    at: p.datetime(),
  },
});
export type TransitionRow = InferEntity<typeof TransitionRow>;
