/** Error codes of the agent-runtime area. Stable: add, never rename. Merged into ErrorCodes. */
export const AgentRuntimeErrorCodes = {} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const AgentRuntimeHttpStatus: Record<string, number> = {};
