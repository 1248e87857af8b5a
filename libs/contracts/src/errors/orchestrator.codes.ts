/** Error codes of the orchestrator (agent sessions, runs). Stable: add, never rename. Merged into ErrorCodes. */
export const OrchestratorErrorCodes = {
  sessionNotFound: 'SESSION.NOT_FOUND',
  sessionAlreadyEnded: 'SESSION.ALREADY_ENDED',
  sessionTurnOutOfOrder: 'SESSION.TURN_OUT_OF_ORDER',
  sessionUnknownToolUse: 'SESSION.UNKNOWN_TOOL_USE',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const OrchestratorHttpStatus: Record<string, number> = {
  [OrchestratorErrorCodes.sessionTurnOutOfOrder]: 409,
};
