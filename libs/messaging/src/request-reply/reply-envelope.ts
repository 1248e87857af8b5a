import { ErrorCodes, HeadspaceError, type WireError } from '@headspace/contracts';
import { asDatabaseUnavailable } from '@headspace/event-store';
import { MessagingError, MessagingErrorCodes } from '../messaging-error';

/** Every reply on a Headspace request subject is one of these, JSON. */
export type ReplyEnvelope<T = unknown> = { ok: true; result: T } | { ok: false; error: WireError };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeJson = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}

/**
 * HeadspaceErrors travel as they are; a lost or refused PostgreSQL connection is DATABASE.UNAVAILABLE
 * (retryable, 503); anything else is INTERNAL.UNEXPECTED, with no message or stack leaked.
 */
export function toWireError(error: unknown, subject: string, traceId?: string): WireError {
  if (error instanceof HeadspaceError && error.code !== ErrorCodes.internal) return error.toWire();
  const unavailable = asDatabaseUnavailable(error);
  if (unavailable) return unavailable.toWire();
  if (error instanceof HeadspaceError) return error.toWire();
  return {
    code: ErrorCodes.internal,
    message: `Unexpected error handling ${subject}`,
    ...(traceId ? { details: { traceId } } : {}),
  };
}

export function readReply(data: Uint8Array, subject: string): ReplyEnvelope {
  let reply: unknown;
  try {
    reply = decodeJson(data);
  } catch {
    reply = undefined;
  }
  const r = reply as Partial<{ ok: boolean; result: unknown; error: unknown }> | undefined;
  if (r && r.ok === true && 'result' in r) return { ok: true, result: r.result };
  if (r && r.ok === false && HeadspaceError.isWire(r.error)) return { ok: false, error: r.error };
  throw new MessagingError(MessagingErrorCodes.badReply, `Reply on ${subject} is not a Headspace reply envelope`, { details: { subject } });
}
