import { AgentRuntimeHttpStatus } from './agent-runtime.codes';
import { CostGovernorHttpStatus } from './cost-governor.codes';
import { ErrorCodes } from './error-codes';
import { GatewayHttpStatus } from './gateway.codes';
import { LlmHttpStatus } from './llm.codes';
import { OpsLeonHttpStatus } from './ops-leon.codes';
import { OrchestratorHttpStatus } from './orchestrator.codes';
import { WorkspaceHttpStatus } from './workspace.codes';

/**
 * The one place where error codes meet HTTP. Exact codes win; otherwise the reason part decides
 * (`*.NOT_FOUND` → 404, `*.ALREADY_*` → 409, …); anything unknown is a 500.
 */
const exact: Record<string, number> = {
  [ErrorCodes.validationFailed]: 400,
  [ErrorCodes.unknownEventType]: 400,
  [ErrorCodes.wrongExpectedVersion]: 409,
  [ErrorCodes.streamNotFound]: 404,
  [ErrorCodes.appendOnly]: 409,
  [ErrorCodes.retriesExhausted]: 503,
  [ErrorCodes.requestTimeout]: 503,
  [ErrorCodes.serviceUnavailable]: 503,
  [ErrorCodes.unknownSubject]: 404,
  [ErrorCodes.disconnected]: 503,
  [ErrorCodes.databaseUnavailable]: 503,
  [ErrorCodes.badReply]: 502,
  [ErrorCodes.publishRejected]: 502,
  [ErrorCodes.provisioningConflict]: 500,
  [ErrorCodes.configInvalid]: 500,
  [ErrorCodes.teamNameInvalid]: 400,
  [ErrorCodes.teamAlreadyExists]: 409,
  // Tasks: reasons the suffix rules would map to 500
  [ErrorCodes.taskCircularDependency]: 400,
  [ErrorCodes.taskBlocked]: 409,
  [ErrorCodes.taskNotOwner]: 403,
  [ErrorCodes.taskNotClaimed]: 409,
  [ErrorCodes.taskLeaseExpired]: 409,
  [ErrorCodes.taskEscalated]: 409,
  [ErrorCodes.lockHeld]: 409,
  [ErrorCodes.lockNotHolder]: 403,
  [ErrorCodes.lockPathOutsideWorkspace]: 400,
  // Team lifecycle and teammates
  [ErrorCodes.teamNotActive]: 409,
  [ErrorCodes.teamMembersActive]: 409,
  [ErrorCodes.teamShutdownAlreadyAnswered]: 409,
  [ErrorCodes.teammateNotActive]: 409,
  [ErrorCodes.teammateDepthLimit]: 409,
  // Mailboxes
  [ErrorCodes.mailboxLeadNotFound]: 404,
  [ErrorCodes.mailboxLeadAlreadyExists]: 409,
  // Personas and pools: reasons the suffix rules would map to 500 (or 400 for a startup-only failure)
  [ErrorCodes.personaLeaseNotFound]: 404,
  [ErrorCodes.personaRequestNotFound]: 404,
  [ErrorCodes.personaConfigInvalid]: 500,
  ...CostGovernorHttpStatus,
  ...GatewayHttpStatus,
  ...AgentRuntimeHttpStatus,
  ...LlmHttpStatus,
  ...OrchestratorHttpStatus,
  ...WorkspaceHttpStatus,
  ...OpsLeonHttpStatus,
};

const byReason: Array<[RegExp, number]> = [
  [/\.([A-Z_]*NOT_FOUND|UNKNOWN_[A-Z_]+)$/, 404],
  [/\.([A-Z_]*ALREADY_[A-Z_]+|[A-Z_]*CONFLICT|WRONG_[A-Z_]+)$/, 409],
  [/\.(INVALID|[A-Z_]+_INVALID|VALIDATION_FAILED)$/, 400],
  [/\.(FORBIDDEN|NOT_ALLOWED)$/, 403],
  [/\.(UNAUTHENTICATED)$/, 401],
  [/\.(TIMEOUT|UNAVAILABLE|NO_RESPONDERS)$/, 503],
];

export function httpStatusForCode(code: string): number {
  const status = exact[code];
  if (status !== undefined) return status;
  for (const [pattern, s] of byReason) if (pattern.test(code)) return s;
  return 500;
}
