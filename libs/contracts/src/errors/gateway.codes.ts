/** Error codes of the gateway area. Stable: add, never rename. Merged into ErrorCodes. */
export const GatewayErrorCodes = {} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const GatewayHttpStatus: Record<string, number> = {};
