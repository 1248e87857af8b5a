import { requestStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { requestDecider, type RequestCommand, type RequestEvent, type RequestState } from './topology.decider';

export async function loadRequest(store: EventStore, requestId: string): Promise<RequestState> {
  const recorded = (await store.readStream(requestStreamId(requestId))) as Array<RecordedEvent & RequestEvent>;
  return foldEvents(requestDecider, recorded.map(({ type, data }) => ({ type, data }) as RequestEvent));
}

/** Records the choice once (command id per request); team and request ride along for the SSE scope. */
export async function recordRequest(store: EventStore, command: RequestCommand): Promise<RequestState> {
  const outcome = await handleCommand(store, requestDecider, requestStreamId(command.requestId), command, { commandId: `${command.requestId}:choose-topology` }, { metadata: { team: command.team, runId: command.requestId } });
  return outcome.state;
}
