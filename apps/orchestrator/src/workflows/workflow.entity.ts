import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { WorkflowView } from '@headspace/contracts';

/** A row of the workflows read model (workflows.projection.ts writes it; migrations/0011_workflows.sql creates it). */
export const WorkflowRow = defineEntity({
  name: 'WorkflowRow',
  tableName: 'workflows',
  properties: {
    workflowId: p.text().primary(),
    team: p.text(),
    name: p.text(),
    mode: p.text().$type<WorkflowView['mode']>(),
    status: p.text().$type<WorkflowView['status']>(),
    simulated: p.boolean(),
    steps: p.integer(),
    startedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});
export type WorkflowRow = InferEntity<typeof WorkflowRow>;
