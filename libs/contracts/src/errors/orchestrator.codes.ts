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
  loopNotFound: 'LOOP.NOT_FOUND',
  learningNotFound: 'LEARNING.NOT_FOUND',
  pluginNotFound: 'PLUGIN.NOT_FOUND',
  /** plugin.json (or a part's file) does not validate: the field is named. */
  pluginManifestInvalid: 'PLUGIN.MANIFEST_INVALID',
  /** The source is not a readable plugin directory or git repository. */
  pluginSourceInvalid: 'PLUGIN.SOURCE_INVALID',
  workflowNotFound: 'WORKFLOW.NOT_FOUND',
  requestNotFound: 'REQUEST.NOT_FOUND',
  /** A slash-command ask names no skill of its workspace, user dir or team's plugins. */
  skillRegistryUnknownSkill: 'SKILL_REGISTRY.UNKNOWN_SKILL',
  evalRunNotFound: 'EVAL.RUN_NOT_FOUND',
  /** The suite file is missing or does not validate: the field is named. */
  evalSuiteInvalid: 'EVAL.SUITE_INVALID',
  /** Compare needs both runs completed. */
  evalRunNotFinished: 'EVAL.RUN_NOT_FINISHED',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const OrchestratorHttpStatus: Record<string, number> = {
  [OrchestratorErrorCodes.sessionTurnOutOfOrder]: 409,
  [OrchestratorErrorCodes.runWrongPhase]: 409,
  [OrchestratorErrorCodes.runTasksInvalid]: 400,
  [OrchestratorErrorCodes.runSourceNotFound]: 400,
  [OrchestratorErrorCodes.runSourceNotAllowed]: 403,
  [OrchestratorErrorCodes.runOutputInvalid]: 422,
  [OrchestratorErrorCodes.pluginManifestInvalid]: 400,
  [OrchestratorErrorCodes.pluginSourceInvalid]: 400,
  [OrchestratorErrorCodes.evalSuiteInvalid]: 400,
  [OrchestratorErrorCodes.evalRunNotFinished]: 409,
  [OrchestratorErrorCodes.skillRegistryUnknownSkill]: 400,
};
