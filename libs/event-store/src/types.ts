import type { EventMetadata } from '@headspace/contracts';
import type { PoolClient, Pool } from 'pg';
import type { CommandContext } from './command-handler/command-context';

/** What the caller believes about the stream before appending. A bigint is an exact version. */
export type ExpectedVersion = 'any' | 'no-stream' | 'stream-exists' | bigint;

export interface NewEvent<T = unknown> {
  type: string;
  data: T;
  metadata?: EventMetadata;
}

export interface RecordedEvent<T = unknown> {
  eventId: string;
  streamId: string;
  /** 1 for the first event of a stream. */
  streamVersion: bigint;
  globalPosition: bigint;
  /** xid8 of the writing transaction, as a decimal string. */
  transactionId: string;
  category: string;
  type: string;
  schemaVersion: number;
  data: T;
  metadata: EventMetadata;
  recordedAt: Date;
}

export interface AppendOptions {
  expected: ExpectedVersion;
  /** Events get ids derived from it, so the same command appended twice records once. */
  commandId?: string;
  /** Merged into every event's metadata (actor, team, …); wins over what `context` gives. */
  metadata?: EventMetadata;
  /**
   * The command's context: its correlation, causation (default: the command id) and trace context
   * become every event's metadata, and its commandId is the default `commandId`.
   */
  context?: CommandContext;
  /** Append inside the caller's transaction instead of the pool. */
  client?: PoolClient;
}

/** One command's events on one stream, as a part of EventStore.appendMany. */
export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  /** An exact version, or 'no-stream' (= 0n). */
  expected: ExpectedVersion;
  commandId?: string;
  metadata?: EventMetadata;
}

/** A stream an appendMany's events were decided on without writing to it, asserted at a version ('no-stream': must not exist). */
export interface StreamCheck {
  streamId: string;
  expected: ExpectedVersion;
}

export interface AppendResult {
  streamId: string;
  /** The stream's version after the append: the expected version for the next one. */
  nextExpectedVersion: bigint;
  firstPosition: bigint;
  lastPosition: bigint;
  /** xid8 of the transaction that wrote the last event (decimal): with lastPosition, the log position the command reached. */
  lastTransactionId?: string;
  eventIds: string[];
  /** True when this command had already been appended and nothing new was written. */
  replayed: boolean;
}

/** A log position, ordered by (transactionId, globalPosition). */
export interface LogPosition {
  transactionId: string;
  globalPosition: bigint;
}

export const LOG_START: LogPosition = { transactionId: '0', globalPosition: 0n };

export type Queryable = Pool | PoolClient;
