/** Error codes of the agent-runtime area. Stable: add, never rename. Merged into ErrorCodes. */
export const AgentRuntimeErrorCodes = {
  // tools and hooks
  toolNotAllowed: 'TOOL.NOT_ALLOWED',
  toolPathOutsideWorkspace: 'TOOL.PATH_OUTSIDE_WORKSPACE',
  toolWriteOutsideOwns: 'TOOL.WRITE_OUTSIDE_OWNS',
  toolTimeout: 'TOOL.TIMEOUT',
  toolInputInvalid: 'TOOL.INPUT_INVALID',
  toolUnknown: 'TOOL.UNKNOWN_TOOL',
  toolFileNotFound: 'TOOL.FILE_NOT_FOUND',
  toolEditNoMatch: 'TOOL.EDIT_NO_MATCH',
  toolEditAmbiguous: 'TOOL.EDIT_AMBIGUOUS',
  toolExecutionFailed: 'TOOL.EXECUTION_FAILED',
  toolDeniedByHook: 'TOOL.DENIED_BY_HOOK',
  toolApprovalRequired: 'TOOL.APPROVAL_REQUIRED',
  hookConfigInvalid: 'HOOK.CONFIG_INVALID',
  hookTimeout: 'HOOK.TIMEOUT',
  hookFailed: 'HOOK.FAILED',
  // context, reflection, definitions
  contextThresholdInvalid: 'CONTEXT.THRESHOLD_INVALID',
  handoffInvalid: 'HANDOFF.INVALID',
  reflectionMalformed: 'REFLECTION.MALFORMED',
  learningsPersonaInvalid: 'LEARNINGS.PERSONA_INVALID',
  learningsEntryNotFound: 'LEARNINGS.ENTRY_NOT_FOUND',
  skillProposalNotFound: 'SKILL.PROPOSAL_NOT_FOUND',
  agentDefinitionInvalid: 'AGENT_DEFINITION.INVALID',
  agentDefinitionNotFound: 'AGENT_DEFINITION.NOT_FOUND',
  claudeCodeSpawnFailed: 'CLAUDE_CODE.SPAWN_FAILED',
  claudeCodeTimeout: 'CLAUDE_CODE.TIMEOUT',
  claudeCodeOutputInvalid: 'CLAUDE_CODE.OUTPUT_INVALID',
  claudeCodeFailed: 'CLAUDE_CODE.FAILED',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const AgentRuntimeHttpStatus: Record<string, number> = {};
