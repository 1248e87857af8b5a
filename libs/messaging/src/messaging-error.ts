import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { RequestError, TimeoutError } from '@nats-io/nats-core';

/**
 * Codes this library raises besides the shared ones in ErrorCodes (MESSAGING.TIMEOUT,
 * MESSAGING.NO_RESPONDERS, INTERNAL.UNEXPECTED). Stable: add, never rename.
 */
export const MessagingErrorCodes = {
  timeout: ErrorCodes.requestTimeout,
  noResponders: ErrorCodes.serviceUnavailable,
  /** A stream or consumer exists with settings that cannot be changed in place (storage, name clash). */
  provisioningConflict: ErrorCodes.provisioningConflict,
  /** The NATS connection is down (the relay refuses to hold its transaction open waiting for it). */
  disconnected: ErrorCodes.disconnected,
  /** A reply that is not a Headspace reply envelope. */
  badReply: ErrorCodes.badReply,
  /** JetStream refused a publish (a stream other than the expected one captured the subject, limits). */
  publishRejected: ErrorCodes.publishRejected,
} as const;

export class MessagingError extends HeadspaceError {}

/** Maps a NATS request failure to a HeadspaceError with a stable code. */
export function fromNatsRequestError(error: unknown, subject: string, timeoutMs: number): HeadspaceError {
  if (error instanceof HeadspaceError) return error;
  if (error instanceof TimeoutError) {
    return new MessagingError(MessagingErrorCodes.timeout, `No reply on ${subject} within ${timeoutMs} ms`, {
      details: { subject, timeoutMs },
      cause: error,
    });
  }
  if (error instanceof RequestError && error.isNoResponders()) {
    return new MessagingError(MessagingErrorCodes.noResponders, `No service is listening on ${subject}`, {
      details: { subject },
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new MessagingError(ErrorCodes.internal, `Request on ${subject} failed: ${message}`, { details: { subject }, cause: error });
}
