import { AgentRuntimeErrorCodes } from './agent-runtime.codes';
import { CostGovernorErrorCodes } from './cost-governor.codes';
import { GatewayErrorCodes } from './gateway.codes';
import { LlmErrorCodes } from './llm.codes';
import { OpsLeonErrorCodes } from './ops-leon.codes';
import { OrchestratorErrorCodes } from './orchestrator.codes';
import { WorkspaceErrorCodes } from './workspace.codes';

/**
 * Stable error codes shared by every service. Add, never rename. Newer areas keep their codes in
 * their own `<area>.codes.ts` beside this file, spread in at the end.
 */
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
  publishRejected: 'MESSAGING.PUBLISH_REJECTED',
  internal: 'INTERNAL.UNEXPECTED',
  databaseUnavailable: 'DATABASE.UNAVAILABLE',
  configInvalid: 'CONFIG.INVALID',
  teamNameInvalid: 'TEAM.NAME_INVALID',
  teamAlreadyExists: 'TEAM.ALREADY_EXISTS',
  // File locks
  lockHeld: 'LOCK.HELD',
  lockNotHolder: 'LOCK.NOT_HOLDER',
  lockPathOutsideWorkspace: 'LOCK.PATH_OUTSIDE_WORKSPACE',
  lockUnknownTeam: 'LOCK.UNKNOWN_TEAM',
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
  // Mailboxes (team-manager mailboxes feature)
  mailboxUnknownTeam: 'MAILBOX.UNKNOWN_TEAM',
  mailboxUnknownRecipient: 'MAILBOX.UNKNOWN_RECIPIENT',
  mailboxUnknownSender: 'MAILBOX.UNKNOWN_SENDER',
  mailboxUnknownMember: 'MAILBOX.UNKNOWN_MEMBER',
  mailboxUnknownRequest: 'MAILBOX.UNKNOWN_REQUEST',
  mailboxRecipientInvalid: 'MAILBOX.RECIPIENT_INVALID',
  mailboxLeadNotFound: 'MAILBOX.LEAD_NOT_FOUND',
  mailboxLeadAlreadyExists: 'MAILBOX.LEAD_ALREADY_EXISTS',
  mailboxRoleConflict: 'MAILBOX.CONFLICT',
  mailboxNotAllowed: 'MAILBOX.NOT_ALLOWED',
  // Team lifecycle and teammates (team-manager teams/ and members/)
  teamNotFound: 'TEAM.NOT_FOUND',
  teamNotActive: 'TEAM.NOT_ACTIVE',
  teamMembersActive: 'TEAM.MEMBERS_ACTIVE',
  teamUnknownShutdownRequest: 'TEAM.UNKNOWN_SHUTDOWN_REQUEST',
  teamShutdownAlreadyAnswered: 'TEAM.SHUTDOWN_ALREADY_ANSWERED',
  teammateNotFound: 'TEAMMATE.NOT_FOUND',
  teammateAlreadyExists: 'TEAMMATE.ALREADY_EXISTS',
  teammateNotActive: 'TEAMMATE.NOT_ACTIVE',
  teammateDepthLimit: 'TEAMMATE.DEPTH_LIMIT',
  // Tasks (team-manager task list: claims, leases, dependencies)
  taskNotFound: 'TASK.NOT_FOUND',
  taskUnknownTeam: 'TASK.UNKNOWN_TEAM',
  taskUnknownDependency: 'TASK.UNKNOWN_DEPENDENCY',
  taskAlreadyExists: 'TASK.ALREADY_EXISTS',
  taskAlreadyClaimed: 'TASK.ALREADY_CLAIMED',
  taskAlreadyCompleted: 'TASK.ALREADY_COMPLETED',
  taskCircularDependency: 'TASK.CIRCULAR_DEPENDENCY',
  taskBlocked: 'TASK.BLOCKED',
  taskNotOwner: 'TASK.NOT_OWNER',
  taskNotClaimed: 'TASK.NOT_CLAIMED',
  taskLeaseExpired: 'TASK.LEASE_EXPIRED',
  taskEscalated: 'TASK.ESCALATED',
  // Reading one's own writes (Hs-Min-Position / Headspace-Min-Position)
  readModelPositionInvalid: 'READ_MODEL.POSITION_INVALID',
  readModelTimeout: 'READ_MODEL.TIMEOUT',
  ...CostGovernorErrorCodes,
  ...GatewayErrorCodes,
  ...AgentRuntimeErrorCodes,
  ...LlmErrorCodes,
  ...OrchestratorErrorCodes,
  ...WorkspaceErrorCodes,
  ...OpsLeonErrorCodes,
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
