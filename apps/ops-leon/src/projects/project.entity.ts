import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A row of the projects read model (projects.projection.ts; migrations/0001_ops_leon.sql). */
export const OpsProjectRow = defineEntity({
  name: 'OpsProjectRow',
  tableName: 'projects',
  properties: {
    project: p.text().primary(),
    projectId: p.text(),
    displayName: p.text(),
    repository: p.text(),
    trusted: p.boolean(),
    environments: p.json<string[]>(),
    team: p.text().nullable(),
    testCommand: p.text(),
    verifyWindowSeconds: p.integer(),
    createdBy: p.text(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    activeKeys: p.integer(),
  },
});
export type OpsProjectRow = InferEntity<typeof OpsProjectRow>;

export const IngestKeyRow = defineEntity({
  name: 'IngestKeyRow',
  tableName: 'ingest_keys',
  properties: {
    keyId: p.text().primary(),
    project: p.text(),
    hint: p.text(),
    label: p.text(),
    createdBy: p.text(),
    createdAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
});
export type IngestKeyRow = InferEntity<typeof IngestKeyRow>;
