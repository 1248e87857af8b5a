import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, getWorkflow } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadWorkflow } from '../workflow-recorder';
import { workflowView } from '../workflow-view';

/** `hs.qry.orchestrator.get-workflow`: folds the workflow's stream (its steps, outputs and timings, always current). */
@Controller()
export class GetWorkflowHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getWorkflow)
  async handle({ workflowId }: z.output<typeof getWorkflow.request>) {
    const state = await loadWorkflow(this.store, workflowId);
    if (!state.started) throw new HeadspaceError(ErrorCodes.workflowNotFound, `No workflow "${workflowId}"`, { field: 'workflowId' });
    return workflowView(state);
  }
}
