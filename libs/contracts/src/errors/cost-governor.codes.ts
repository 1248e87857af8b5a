/** Error codes of the cost-governor area. Stable: add, never rename. Merged into ErrorCodes. */
export const CostGovernorErrorCodes = {} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const CostGovernorHttpStatus: Record<string, number> = {};
