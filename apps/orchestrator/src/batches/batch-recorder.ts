import { batchStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { batchDecider, type BatchCommand, type BatchEvent, type BatchState } from './batch.decider';

/** The batch as its stream has it now. */
export async function loadBatch(store: EventStore, batchId: string): Promise<BatchState> {
  const recorded = (await store.readStream(batchStreamId(batchId))) as Array<RecordedEvent & BatchEvent>;
  return foldEvents(batchDecider, recorded.map(({ type, data }) => ({ type, data }) as BatchEvent));
}

/** The command id of a step: it names the step (and the item or attempt), so a step repeated after a crash appends nothing. */
function stepId(command: BatchCommand): string {
  switch (command.type) {
    case 'settle-item':
      return `${command.batchId}:settle:${command.customId}`;
    case 'attempt-create':
      return `${command.batchId}:attempt-create:${command.attempt}`;
    default:
      return `${command.batchId}:${command.type}`;
  }
}

/**
 * Records a step of the batch through the one command handler. Prompts, answers and errors are
 * redacted before they are decided on. Team and batch ride along as metadata: the SSE stream scopes
 * by team and filters `run=<batchId>` on it.
 */
export async function recordBatch(store: EventStore, team: string, given: BatchCommand): Promise<{ state: BatchState; streamVersion: bigint; events: BatchEvent[] }> {
  const command = redactStep(given, ['providerBatchId', 'usageId']);
  const outcome = await handleCommand(store, batchDecider, batchStreamId(given.batchId), command, { commandId: stepId(given) }, { metadata: { team, runId: given.batchId } });
  return { state: outcome.state, streamVersion: outcome.streamVersion, events: outcome.events };
}
