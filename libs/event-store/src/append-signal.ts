import { EventEmitter } from 'node:events';

/**
 * An in-process hint that a schema's log just grew, naming the event types appended: every
 * EventStore emits it after a committed append, and every ProcessorRunner of that schema in the same
 * process that handles one of those types polls at once instead of waiting out its idle interval.
 * Purely a wake-up: processors still poll on their own, which is how they see appends made by other
 * processes (replicas) and by callers' own transactions.
 */
const signal = new EventEmitter();
signal.setMaxListeners(0);

export function signalAppended(schema: string, types: readonly string[]): void {
  signal.emit(schema, types);
}

export function onAppended(schema: string, listener: (types: readonly string[]) => void): () => void {
  signal.on(schema, listener);
  return () => signal.off(schema, listener);
}
