import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogPosition } from './types';

/** Orders log positions as the processors read them: by (transactionId, globalPosition). */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  const ta = BigInt(a.transactionId);
  const tb = BigInt(b.transactionId);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.globalPosition === b.globalPosition ? 0 : a.globalPosition < b.globalPosition ? -1 : 1;
}

const later = (a: LogPosition | undefined, b: LogPosition): LogPosition => (a && comparePositions(a, b) >= 0 ? a : b);

/** The furthest log position the work of one request reached (its appends, or a retried command's prior result). */
export interface PositionRecorder {
  position?: LogPosition;
}

const current = new AsyncLocalStorage<PositionRecorder>();
/** Per schema, the furthest position appended by this process: see `appendedPositionOf`. */
const appendedBySchema = new Map<string, LogPosition>();

/** Runs `work` with a recorder that the EventStore's appends and prior-result lookups made within it write to. */
export function recordingPositions<T>(recorder: PositionRecorder, work: () => T): T {
  return current.run(recorder, work);
}

/** Called by the EventStore with where an append (or a command's prior result) reached. */
export function recordPosition(schema: string | undefined, position: LogPosition): void {
  const recorder = current.getStore();
  if (recorder) recorder.position = later(recorder.position, position);
  if (schema) appendedBySchema.set(schema, later(appendedBySchema.get(schema), position));
}

/**
 * The furthest position this process has appended to a schema's log. A command whose events were
 * appended by work outside its async context (a group commit: one statement for many callers,
 * run in whichever caller's turn) falls back to it: it was recorded before that command's promise
 * resolved, so it is at or past the command's own events.
 */
export function appendedPositionOf(schema: string): LogPosition | undefined {
  return appendedBySchema.get(schema);
}
