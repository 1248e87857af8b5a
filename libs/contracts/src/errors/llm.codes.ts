/** Error codes of the llm area. Stable: add, never rename. Merged into ErrorCodes. */
export const LlmErrorCodes = {} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const LlmHttpStatus: Record<string, number> = {};
