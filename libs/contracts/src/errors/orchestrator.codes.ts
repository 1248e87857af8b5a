/** Error codes of the orchestrator (agent sessions, runs). Stable: add, never rename. Merged into ErrorCodes. */
export const OrchestratorErrorCodes = {
  sessionNotFound: 'SESSION.NOT_FOUND',
  sessionAlreadyEnded: 'SESSION.ALREADY_ENDED',
  sessionTurnOutOfOrder: 'SESSION.TURN_OUT_OF_ORDER',
  sessionUnknownToolUse: 'SESSION.UNKNOWN_TOOL_USE',
  runNotFound: 'RUN.NOT_FOUND',
  runAlreadyExists: 'RUN.ALREADY_EXISTS',
  runWrongPhase: 'RUN.WRONG_PHASE',
  runTasksInvalid: 'RUN.TASKS_INVALID',
  runEscalationNotFound: 'RUN.ESCALATION_NOT_FOUND',
  runSourceNotFound: 'RUN.SOURCE_NOT_FOUND',
  /** A source outside HS_SOURCE_ROOTS (or of a refused shape): the orchestrator never reads it. */
  runSourceNotAllowed: 'RUN.SOURCE_NOT_ALLOWED',
  runOutputInvalid: 'RUN.OUTPUT_INVALID',
  askNotFound: 'ASK.NOT_FOUND',
  batchNotFound: 'BATCH.NOT_FOUND',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const OrchestratorHttpStatus: Record<string, number> = {
  [OrchestratorErrorCodes.sessionTurnOutOfOrder]: 409,
  [OrchestratorErrorCodes.runWrongPhase]: 409,
  [OrchestratorErrorCodes.runTasksInvalid]: 400,
  [OrchestratorErrorCodes.runSourceNotFound]: 400,
  [OrchestratorErrorCodes.runSourceNotAllowed]: 403,
  [OrchestratorErrorCodes.runOutputInvalid]: 422,
};
