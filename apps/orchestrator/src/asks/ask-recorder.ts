import { askStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { askDecider, type AskCommand, type AskEvent, type AskState } from './ask.decider';

/** The ask as its stream has it now. */
export async function loadAsk(store: EventStore, askId: string): Promise<AskState> {
  const recorded = (await store.readStream(askStreamId(askId))) as Array<RecordedEvent & AskEvent>;
  return foldEvents(askDecider, recorded.map(({ type, data }) => ({ type, data }) as AskEvent));
}

/**
 * Records a step of the ask through the one command handler. The command id names the step, so a
 * step repeated after a crash appends nothing. Secrets in the prompt and the result are redacted
 * before they are decided on; the workspace is kept as given (the checkout is made from it).
 */
export async function recordAsk(store: EventStore, team: string, given: AskCommand): Promise<{ state: AskState; streamVersion: bigint; events: AskEvent[] }> {
  const command = redactStep(given, given.type === 'start-ask' ? ['workspace', 'promptDigest'] : []);
  // Team and ask ride along as metadata: the SSE stream scopes by team and filters `run=<askId>` on it.
  const outcome = await handleCommand(store, askDecider, askStreamId(given.askId), command, { commandId: `${given.askId}:${given.type}` }, { metadata: { team, runId: given.askId } });
  return { state: outcome.state, streamVersion: outcome.streamVersion, events: outcome.events };
}
