import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { cancelWorkflow, ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadWorkflow, recordWorkflow } from '../workflow-recorder';

/**
 * `hs.cmd.orchestrator.cancel-workflow`: ends a running workflow as cancelled, so no further step
 * starts; an ask already running finishes on its own and is not recorded as the step's outcome.
 * An ended workflow answers with the status it ended with.
 */
@Controller()
export class CancelWorkflowHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(cancelWorkflow)
  async handle({ workflowId, reason }: z.output<typeof cancelWorkflow.request>) {
    const current = await loadWorkflow(this.store, workflowId);
    if (!current.started) throw new HeadspaceError(ErrorCodes.workflowNotFound, `No workflow "${workflowId}"`, { field: 'workflowId' });
    const { state } = await recordWorkflow(this.store, current.started.team, { type: 'end-workflow', workflowId, status: 'cancelled', reason: reason ?? 'cancelled by the operator', now: new Date().toISOString() });
    return { workflowId, status: state.status === 'none' ? 'running' : state.status };
  }
}
