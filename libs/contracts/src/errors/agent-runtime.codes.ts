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
  /** The CLI ended without the reflection the spawn protocol asks for: the task is not known done. */
  claudeCodeNoReflection: 'CLAUDE_CODE.NO_REFLECTION',
  /** Tool calls the task needed were denied (policy, permissions or a missing tool). */
  claudeCodeToolsDenied: 'CLAUDE_CODE.TOOLS_DENIED',
  /** bubblewrap cannot run here and the operator did not set HS_SANDBOX=off: agent sessions do not start. */
  sandboxUnavailable: 'SANDBOX.UNAVAILABLE',
  // MCP client
  /** The MCP server answered a tools/call with isError, or the call failed or timed out. */
  mcpToolFailed: 'MCP.TOOL_FAILED',
  /** A deferred MCP tool was called before ToolSearch loaded it. */
  mcpToolNotLoaded: 'MCP.TOOL_NOT_LOADED',
} as const;

const C = AgentRuntimeErrorCodes;

/**
 * HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly:
 * a tool or hook that times out is a gateway timeout (504), not an unavailable service (503); a
 * model answer the runtime cannot use is unprocessable (422); a failing `claude` child is a bad
 * upstream (502).
 */
export const AgentRuntimeHttpStatus: Record<string, number> = {
  [C.toolPathOutsideWorkspace]: 400,
  [C.toolWriteOutsideOwns]: 403,
  [C.toolDeniedByHook]: 403,
  [C.toolApprovalRequired]: 403,
  [C.toolTimeout]: 504,
  [C.toolEditNoMatch]: 422,
  [C.toolEditAmbiguous]: 422,
  [C.toolExecutionFailed]: 422,
  [C.hookTimeout]: 504,
  [C.hookFailed]: 502,
  [C.handoffInvalid]: 422,
  [C.reflectionMalformed]: 422,
  [C.claudeCodeSpawnFailed]: 502,
  [C.claudeCodeTimeout]: 504,
  [C.claudeCodeOutputInvalid]: 502,
  [C.claudeCodeFailed]: 502,
  [C.claudeCodeNoReflection]: 422,
  [C.claudeCodeToolsDenied]: 422,
  [C.sandboxUnavailable]: 503,
  [C.mcpToolFailed]: 502,
  [C.mcpToolNotLoaded]: 409,
};
