import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listWorkflows } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { WorkflowRow } from '../workflow.entity';

/** `hs.qry.orchestrator.list-workflows`: the team's workflows from the workflows read model, newest first. */
@Controller()
export class ListWorkflowsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listWorkflows)
  async handle({ team, limit }: z.output<typeof listWorkflows.request>) {
    const rows = await this.reads.em().find(WorkflowRow, { team }, { orderBy: { startedAt: 'desc', workflowId: 'desc' }, limit });
    return {
      workflows: rows.map((r) => ({
        workflowId: r.workflowId,
        team: r.team,
        name: r.name,
        mode: r.mode,
        status: r.status,
        simulated: r.simulated,
        steps: r.steps,
        startedAt: r.startedAt.toISOString(),
        endedAt: r.endedAt ? r.endedAt.toISOString() : null,
      })),
    };
  }
}
