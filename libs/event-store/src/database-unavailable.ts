import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

/**
 * SQLSTATEs of a server going away or not taking connections yet: 57P01 admin_shutdown (a fast or
 * immediate stop), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, recovering), 53300
 * too_many_connections; class 08 is "connection exception".
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** pg's and pg-pool's own errors carry no code, only these messages. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // unexpectedly, or due to connection timeout
  /^timeout exceeded when trying to connect/, // the pool's connectionTimeoutMillis
  /is not queryable/, // a client whose connection broke, or was closed
  /^Cannot use a pool after calling end/, // a query racing the shutdown
];

/** The pg code of a connection failure (a SQLSTATE or a socket errno), or its message when pg gives none. */
function unavailableReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_STATES.has(code) || code.startsWith('08') || NETWORK_CODES.has(code))) return code;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return message;
  // Connecting to a host name with several addresses fails with an AggregateError of each attempt.
  if (Array.isArray(errors)) return errors.map(unavailableReason).find((reason) => reason !== undefined);
  return undefined;
}

/**
 * PostgreSQL could not be reached, or the connection broke under a running statement (a restart, a
 * failover): the request may well succeed when retried shortly, so it is answered 503 with
 * Retry-After, never INTERNAL.UNEXPECTED. A command that failed this way may or may not have been
 * committed; retrying it with the same command id is safe (event ids derive from it).
 */
export class DatabaseUnavailableError extends HeadspaceError {
  constructor(reason: string, cause?: unknown) {
    super(ErrorCodes.databaseUnavailable, 'The database is unavailable; retry shortly', { details: { reason }, cause });
  }
}

/**
 * The error (or one of its causes) as a DatabaseUnavailableError when it is a connection failure,
 * else undefined. Only the code or pg's fixed message is kept: a socket message names the host.
 */
export function asDatabaseUnavailable(error: unknown): DatabaseUnavailableError | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current !== undefined && current !== null && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    if (current instanceof DatabaseUnavailableError) return current;
    const reason = unavailableReason(current);
    if (reason !== undefined) return new DatabaseUnavailableError(/^[A-Z0-9]+$/.test(reason) ? reason : 'connection lost', error);
  }
  return undefined;
}
