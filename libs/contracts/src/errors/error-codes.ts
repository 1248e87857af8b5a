/** Stable error codes shared by every service. Add, never rename. */
export const ErrorCodes = {
  validationFailed: 'CONTRACTS.VALIDATION_FAILED',
  unknownEventType: 'CONTRACTS.UNKNOWN_EVENT_TYPE',
  wrongExpectedVersion: 'EVENTSTORE.WRONG_EXPECTED_VERSION',
  streamNotFound: 'EVENTSTORE.STREAM_NOT_FOUND',
  appendOnly: 'EVENTSTORE.APPEND_ONLY',
  retriesExhausted: 'EVENTSTORE.RETRIES_EXHAUSTED',
  leaseLost: 'PROCESSOR.LEASE_LOST',
  requestTimeout: 'MESSAGING.TIMEOUT',
  serviceUnavailable: 'MESSAGING.NO_RESPONDERS',
  unknownSubject: 'MESSAGING.UNKNOWN_SUBJECT',
  provisioningConflict: 'MESSAGING.PROVISIONING_CONFLICT',
  disconnected: 'MESSAGING.DISCONNECTED',
  badReply: 'MESSAGING.BAD_REPLY',
  internal: 'INTERNAL.UNEXPECTED',
  configInvalid: 'CONFIG.INVALID',
  teamNameInvalid: 'TEAM.NAME_INVALID',
  teamAlreadyExists: 'TEAM.ALREADY_EXISTS',
  // File locks
  lockHeld: 'LOCK.HELD',
  lockNotHolder: 'LOCK.NOT_HOLDER',
  lockPathOutsideWorkspace: 'LOCK.PATH_OUTSIDE_WORKSPACE',
  // Personas and pools, team manifest, approvals queue
  personaNotFound: 'PERSONA.NOT_FOUND',
  personaAlreadyExists: 'PERSONA.ALREADY_EXISTS',
  personaLeaseNotFound: 'PERSONA.LEASE_NOT_FOUND',
  personaRequestNotFound: 'PERSONA.REQUEST_NOT_FOUND',
  personaConfigInvalid: 'PERSONA.CONFIG_INVALID',
  poolNotFound: 'POOL.NOT_FOUND',
  manifestInvalid: 'MANIFEST.INVALID',
  manifestNotFound: 'MANIFEST.NOT_FOUND',
  approvalNotFound: 'APPROVAL.NOT_FOUND',
  approvalAlreadyAnswered: 'APPROVAL.ALREADY_ANSWERED',
  approvalAlreadyTimedOut: 'APPROVAL.ALREADY_TIMED_OUT',
  approvalUnknownTeam: 'APPROVAL.UNKNOWN_TEAM',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
