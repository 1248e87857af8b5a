/** Error codes of Leon's ops area (apps/ops-leon). Stable: add, never rename. Merged into ErrorCodes. */
export const OpsLeonErrorCodes = {
  opsProjectNotFound: 'OPS.PROJECT_NOT_FOUND',
  opsProjectAlreadyExists: 'OPS.PROJECT_ALREADY_EXISTS',
  /** The ingest key is not one of the project's, or was revoked. */
  opsIngestKeyInvalid: 'OPS.INGEST_KEY_INVALID',
  opsIngestKeyNotFound: 'OPS.INGEST_KEY_NOT_FOUND',
  opsIngestKeyAlreadyRevoked: 'OPS.INGEST_KEY_ALREADY_REVOKED',
  /** A retried create-ingest-key: the key was made (and shown) by its first attempt and is not kept. */
  opsIngestKeyAlreadyIssued: 'OPS.INGEST_KEY_ALREADY_ISSUED',
  /** The project sent more than HS_OPS_RATE_LIMIT_PER_MIN events in the last minute: nothing was recorded. */
  opsRateLimited: 'OPS.RATE_LIMITED',
  opsGroupNotFound: 'OPS.GROUP_NOT_FOUND',
  /** The group's lifecycle does not allow that move from its state (details: from, to). */
  opsIllegalTransition: 'OPS.ILLEGAL_TRANSITION',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const OpsLeonHttpStatus: Record<string, number> = {
  [OpsLeonErrorCodes.opsIngestKeyInvalid]: 401,
  [OpsLeonErrorCodes.opsRateLimited]: 429,
  [OpsLeonErrorCodes.opsIllegalTransition]: 409,
};
