import { workflowStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { workflowDecider, type WorkflowCommand, type WorkflowEvent, type WorkflowState } from './workflow.decider';

/** The workflow as its stream has it now. */
export async function loadWorkflow(store: EventStore, workflowId: string): Promise<WorkflowState> {
  const recorded = (await store.readStream(workflowStreamId(workflowId))) as Array<RecordedEvent & WorkflowEvent>;
  return foldEvents(workflowDecider, recorded.map(({ type, data }) => ({ type, data }) as WorkflowEvent));
}

/** The command id names the step and attempt, so a step repeated after a crash appends nothing. */
function stepId(command: WorkflowCommand): string {
  switch (command.type) {
    case 'start-step':
    case 'end-step':
      return `${command.workflowId}:${command.type}:${command.stepId}:${command.attempt}`;
    default:
      return `${command.workflowId}:${command.type}`;
  }
}

/**
 * Records a step of the workflow through the one command handler, prompts and outputs redacted
 * before they are decided on. Team and workflow ride along as metadata: the SSE stream scopes by
 * team and filters `run=<workflowId>` on it.
 */
export async function recordWorkflow(store: EventStore, team: string, given: WorkflowCommand): Promise<{ state: WorkflowState; streamVersion: bigint; events: WorkflowEvent[] }> {
  const command = redactStep(given, given.type === 'start-workflow' ? ['workspace'] : []);
  const outcome = await handleCommand(store, workflowDecider, workflowStreamId(given.workflowId), command, { commandId: stepId(given) }, { metadata: { team, runId: given.workflowId } });
  return { state: outcome.state, streamVersion: outcome.streamVersion, events: outcome.events };
}
