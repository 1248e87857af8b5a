import type { EventMetadata } from '@headspace/contracts';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { ConcurrencyError } from '../concurrency-error';
import type { Decider } from '../decider';
import { priorResultIn, type EventStore } from '../event-store';
import { withRetry, type RetryOptions } from '../retry';
import type { ExpectedVersion, NewEvent, RecordedEvent } from '../types';
import type { CommandContext } from './command-context';
import { KeyedQueue } from './keyed-queue';
import { inStreamTurn } from './stream-turn';

/**
 * The one retry policy of commands: a lost version race, a serialization failure or deadlock, and
 * the same command racing itself (a duplicate event id inside a transaction) are tried again on a
 * fresh read, at most 5 times in all, with exponential backoff and full jitter (the seed's bound for
 * busy retries); then EVENTSTORE.RETRIES_EXHAUSTED.
 */
export const COMMAND_RETRY: RetryOptions = {
  maxAttempts: 5,
  baseDelayMs: 5,
  maxDelayMs: 200,
  retryOn: (error) => error instanceof ConcurrencyError || ['40001', '40P01', '23505'].includes((error as { code?: string })?.code ?? ''),
};

export interface CommandOutcome<State, Event> {
  /** This command's events on its stream; on a retried command id, the ones its first attempt appended. */
  events: Event[];
  /** The state after them; on a retried command id, as the first attempt left it, not as others changed it since. */
  state: State;
  /** The stream's version after the command (0n: no stream). */
  streamVersion: bigint;
  /** True when the command id had been handled before and nothing was appended now. */
  replayed: boolean;
  commandId: string;
}

/** What a command's extra reads see: the stream as read, folded. */
export interface LoadedStream<State> {
  state: State;
  history: readonly RecordedEvent[];
  /** The turn's transaction in turn mode: extra reads made with it see the same moment. */
  client?: PoolClient;
}

/** Where an event the decision makes for another stream goes (a copy in an inbox, a new stream). */
export interface Elsewhere {
  streamId: string;
  expected: ExpectedVersion;
}

export interface HandleCommandOptions<State, Event> {
  /**
   * Serialise the stream's writers instead of racing them: a per-stream queue in this process (one
   * connection waits, not one per request) and the stream's turn across replicas (`inStreamTurn`).
   * For streams many independent commands share (a team's roster or task list, a registry).
   */
  turn?: boolean;
  /** Another bound than COMMAND_RETRY; false: no retry (a single writer for which a conflict means it lost the stream). */
  retry?: RetryOptions | false;
  /** Metadata every event carries besides the context's (e.g. the team, for readers of a single event). */
  metadata?: EventMetadata | ((state: State) => EventMetadata);
  /**
   * Where a command's first attempt may have left nothing on this stream, or only part of its events
   * (a message delivered to inboxes): all its events, wherever they went, or null. Asked instead of
   * looking at this stream's history; the answer's state is the stream's as read.
   */
  prior?: (loaded: LoadedStream<State>, commandId: string) => Promise<Event[] | null>;
  /** The extra reads a command needs (another stream), after the fold: may refine the state or throw a typed error. */
  before?: (loaded: LoadedStream<State>) => Promise<State | void> | State | void;
  /** Events of the decision that belong to other streams, appended after this stream's in one transaction. */
  route?: (event: Event) => Elsewhere | undefined;
  /** The stream already in hand (its one writer holds it): decide on it without reading; a conflict is not retried on it. */
  inHand?: { state: State; version: bigint };
}

const turnQueues = new WeakMap<EventStore, KeyedQueue>();

/**
 * Handles one command on one stream: read, fold, decide, append at the version read (the context's
 * correlation, causation and trace context become the events' metadata in `append`), retrying a lost
 * race on a fresh read within COMMAND_RETRY. A command id already recorded on the stream appends
 * nothing and answers as its first attempt did. A decision of no events appends nothing.
 */
export async function handleCommand<Command, State, Event extends NewEvent>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  streamId: string,
  command: Command,
  ctx: CommandContext,
  options: HandleCommandOptions<State, Event> = {},
): Promise<CommandOutcome<State, Event>> {
  const context = { ...ctx, commandId: ctx.commandId ?? randomUUID() };
  let inHand = options.inHand;
  const attempt = (client?: PoolClient) => {
    const held = inHand;
    inHand = undefined;
    return decideAndAppend(store, decider, streamId, command, context, options, held, client);
  };
  const retried = <T>(work: () => Promise<T>) => (options.retry === false ? work() : withRetry(work, options.retry ?? COMMAND_RETRY));
  if (!options.turn) return retried(() => attempt());
  let queue = turnQueues.get(store);
  if (!queue) turnQueues.set(store, (queue = new KeyedQueue()));
  return queue.run(streamId, () => retried(() => inStreamTurn(store, streamId, attempt)));
}

async function decideAndAppend<Command, State, Event extends NewEvent>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  streamId: string,
  command: Command,
  context: CommandContext & { commandId: string },
  options: HandleCommandOptions<State, Event>,
  inHand: { state: State; version: bigint } | undefined,
  client: PoolClient | undefined,
): Promise<CommandOutcome<State, Event>> {
  const { commandId } = context;
  let history: RecordedEvent[] = [];
  let { state, version } = inHand ?? { state: decider.initialState(), version: 0n };
  if (!inHand) {
    history = await store.readStream(streamId, { client });
    if (!options.prior) {
      const prior = priorOutcome(decider, history, commandId);
      if (prior) return prior;
    }
    state = fold(decider, history);
    version = history.length ? history[history.length - 1].streamVersion : 0n;
    const found = await options.prior?.({ state, history, client }, commandId);
    if (found) return { events: found, state, streamVersion: version, replayed: true, commandId };
  }
  if (options.before) state = (await options.before({ state, history, client })) ?? state;

  const events = decider.decide(command, state);
  if (events.length === 0) return { events, state, streamVersion: version, replayed: false, commandId };
  const own: Event[] = [];
  const elsewhere = new Map<string, { expected: ExpectedVersion; events: Event[] }>();
  for (const event of events) {
    const target = options.route?.(event);
    if (!target) own.push(event);
    else (elsewhere.get(target.streamId) ?? elsewhere.set(target.streamId, { expected: target.expected, events: [] }).get(target.streamId)!).events.push(event);
  }
  const metadata = typeof options.metadata === 'function' ? options.metadata(state) : options.metadata;
  const appendAll = async (db: PoolClient | undefined): Promise<{ version: bigint; replayed: boolean }> => {
    let next = { version, replayed: false };
    if (own.length > 0) {
      const expected = version === 0n ? 'no-stream' : version;
      const result = await store.append(streamId, own, { expected, context, metadata, client: db });
      // The same command got in first (it raced itself): a fresh read answers from the log, unless the stream is held.
      if (result.replayed && !inHand) throw new ConcurrencyError(streamId, expected, result.nextExpectedVersion);
      next = result.replayed ? { version, replayed: true } : { version: result.nextExpectedVersion, replayed: false };
    }
    // Other streams in one order (sorted), so concurrent commands lock them alike.
    for (const target of [...elsewhere.keys()].sort()) {
      const { expected, events: theirs } = elsewhere.get(target)!;
      await store.append(target, theirs, { expected, context, metadata, client: db });
    }
    return next;
  };
  const appended = client || elsewhere.size === 0 ? await appendAll(client) : await store.transaction(appendAll);
  if (appended.replayed) return { events, state, streamVersion: version, replayed: true, commandId };
  return { events, state: events.reduce((s, e) => decider.evolve(s, e), state), streamVersion: appended.version, replayed: false, commandId };
}

/**
 * A command's first outcome, from the stream already read in full: its events and the state as they
 * left it (not as later commands changed it). Null when the command appended nothing to the stream.
 */
export function priorOutcome<State, Event>(decider: Pick<Decider<unknown, State, Event>, 'evolve' | 'initialState'>, history: readonly RecordedEvent[], commandId: string): CommandOutcome<State, Event> | null {
  const prior = priorResultIn(history, commandId);
  if (!prior) return null;
  const asLeft = history.filter((e) => e.streamVersion <= prior.nextExpectedVersion);
  const events = asLeft.filter((e) => e.metadata.commandId === commandId).map((e) => ({ type: e.type, data: e.data }) as Event);
  return { events, state: fold(decider, asLeft), streamVersion: prior.nextExpectedVersion, replayed: true, commandId };
}

function fold<State, Event>(decider: Pick<Decider<unknown, State, Event>, 'evolve' | 'initialState'>, history: readonly RecordedEvent[]): State {
  return history.reduce((state, event) => decider.evolve(state, event as unknown as Event), decider.initialState());
}
