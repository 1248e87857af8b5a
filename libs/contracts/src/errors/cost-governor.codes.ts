/** Error codes of the cost-governor area. Stable: add, never rename. Merged into ErrorCodes. */
export const CostGovernorErrorCodes = {
  costUnknownModel: 'COST.UNKNOWN_MODEL',
  priceTableInvalid: 'COST.PRICE_TABLE_INVALID',
  priceVersionNotNewer: 'COST.PRICE_VERSION_NOT_NEWER',
  budgetNotFound: 'BUDGET.NOT_FOUND',
  budgetPaused: 'BUDGET.PAUSED',
  budgetExceeded: 'BUDGET.EXCEEDED',
  budgetStopped: 'BUDGET.STOPPED',
  budgetNotPaused: 'BUDGET.NOT_PAUSED',
  budgetTurnCapExceeded: 'BUDGET.TURN_CAP_EXCEEDED',
  reservationNotFound: 'RESERVATION.NOT_FOUND',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const CostGovernorHttpStatus: Record<string, number> = {
  'COST.UNKNOWN_MODEL': 400,
  'COST.PRICE_TABLE_INVALID': 400,
  'COST.PRICE_VERSION_NOT_NEWER': 409,
  'BUDGET.PAUSED': 409,
  'BUDGET.EXCEEDED': 402,
  'BUDGET.STOPPED': 409,
  'BUDGET.NOT_PAUSED': 409,
  'BUDGET.TURN_CAP_EXCEEDED': 400,
};
