import { HeadspaceError, ErrorCodes } from '@headspace/contracts';

/**
 * The SSE `id` of every message: where the client stands in each JetStream event stream, so that
 * `Last-Event-ID` resumes every stream at exactly the next sequence.
 *
 * Format: `v1:` followed by `<key>=<seq in base 36>` pairs joined by `,`, e.g.
 * `v1:team_manager=2s,orchestrator=a`. `<key>` is the stream name without the namespace prefix and
 * the `HS_EVT_` part, lower-cased. A stream absent from the cursor stands at 0 (nothing of it seen).
 */
export type Cursor = Map<string, number>;

const VERSION = 'v1:';
const KEY = /^[a-z0-9_]{1,64}$/;
const SEQ = /^[0-9a-z]{1,12}$/;
const MAX_LENGTH = 2_048;

export function encodeCursor(cursor: Cursor): string {
  const parts: string[] = [];
  for (const [key, seq] of cursor) if (seq > 0) parts.push(`${key}=${seq.toString(36)}`);
  return VERSION + parts.join(',');
}

export function decodeCursor(id: string): Cursor {
  const bad = (why: string) =>
    new HeadspaceError(ErrorCodes.validationFailed, `Last-Event-ID is not a cursor of this stream: ${why}`, { field: 'Last-Event-ID' });
  if (id.length > MAX_LENGTH) throw bad('too long');
  if (!id.startsWith(VERSION)) throw bad(`expected it to start with "${VERSION}"`);
  const cursor: Cursor = new Map();
  const body = id.slice(VERSION.length);
  if (body === '') return cursor;
  for (const part of body.split(',')) {
    const [key, seq, extra] = part.split('=');
    if (extra !== undefined || !key || !seq || !KEY.test(key) || !SEQ.test(seq)) throw bad(`malformed entry "${part.slice(0, 80)}"`);
    const value = parseInt(seq, 36);
    if (!Number.isSafeInteger(value)) throw bad(`sequence out of range in "${key}"`);
    cursor.set(key, value);
  }
  return cursor;
}

/** The cursor key of a JetStream stream name (`E2E_AB_HS_EVT_TEAM_MANAGER` → `team_manager`). */
export function cursorKeyOf(streamName: string, streamPrefix: string): string {
  const rest = streamName.startsWith(streamPrefix) ? streamName.slice(streamPrefix.length) : streamName;
  return rest.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 64);
}
