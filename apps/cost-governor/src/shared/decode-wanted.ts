import type { EventStore, RecordedEvent } from '@headspace/event-store';

/**
 * A processor's `decode` that validates only the event types it handles: the runner decodes every
 * event of the log before it filters by type, and the contract check is most of that cost.
 */
export function decodeWanted(store: EventStore, types: string[]): (event: RecordedEvent) => RecordedEvent {
  const wanted = new Set(types);
  return (event) => (wanted.has(event.type) ? store.validated(event) : event);
}
