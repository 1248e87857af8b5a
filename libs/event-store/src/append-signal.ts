import { EventEmitter } from 'node:events';

/**
 * An in-process hint that a schema's log just grew, naming the event types appended: every
 * EventStore emits it after a committed append, and every ProcessorRunner of that schema in the same
 * process that handles one of those types polls at once instead of waiting out its idle interval.
 * Purely a wake-up: processors still poll on their own. Appends of other processes (replicas) arrive
 * through PostgreSQL LISTEN/NOTIFY (append-wakeups.ts) as `remote` signals; the poll stays the
 * fallback when that connection is down.
 *
 * An append made in a caller's transaction is not committed yet when it returns: its signal waits on
 * the transaction's client until whoever commits releases it (`EventStore.transaction` and the
 * processor runner do), and a rollback drops it.
 */
const signal = new EventEmitter();
signal.setMaxListeners(0);

/** Signals waiting for their transaction to commit, by the client that runs it, then by schema. */
const deferred = new WeakMap<object, Map<string, Set<string>>>();

/** `local`: committed by this process; `remote`: another process said so over NOTIFY. An empty list: any type. */
export type AppendOrigin = 'local' | 'remote';

export function signalAppended(schema: string, types: readonly string[], origin: AppendOrigin = 'local'): void {
  signal.emit(schema, types, origin);
}

export function onAppended(schema: string, listener: (types: readonly string[], origin: AppendOrigin) => void): () => void {
  signal.on(schema, listener);
  return () => signal.off(schema, listener);
}

/** Holds an append's signal until the transaction running on `client` commits. */
export function deferAppendSignal(client: object, schema: string, types: readonly string[]): void {
  let bySchema = deferred.get(client);
  if (!bySchema) deferred.set(client, (bySchema = new Map()));
  const pending = bySchema.get(schema) ?? new Set<string>();
  for (const type of types) pending.add(type);
  bySchema.set(schema, pending);
}

/** The transaction on `client` committed: its appends' signals go out now. */
export function releaseAppendSignals(client: object): void {
  const bySchema = deferred.get(client);
  if (!bySchema) return;
  deferred.delete(client);
  for (const [schema, types] of bySchema) signalAppended(schema, [...types]);
}

/** The transaction on `client` rolled back: its appends never happened. */
export function dropAppendSignals(client: object): void {
  deferred.delete(client);
}
