import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

/** Namespace for event ids derived from command ids (fixed forever: changing it breaks idempotency). */
const EVENT_ID_NAMESPACE = '6f1c5c4e-3c1a-4b7e-9a55-2d8f3e0f7a10';

/** The id of the index-th event a command appends to a stream: the same inputs always give the same id. */
export function deterministicEventId(commandId: string, streamId: string, index: number): string {
  return uuidv5(`${streamId}\u0000${commandId}\u0000${index}`, EVENT_ID_NAMESPACE);
}

export function newEventId(): string {
  return uuidv7();
}

export function categoryOf(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash > 0 ? streamId.slice(0, dash) : streamId;
}

/** An entity id a command creates, derived from the command id so a retried command creates the same one. */
export function idFromCommand(commandId: string, purpose: string): string {
  return uuidv5(`${purpose}\u0000${commandId}`, EVENT_ID_NAMESPACE);
}
