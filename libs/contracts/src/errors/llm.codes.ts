/** Error codes of the llm area. Stable: add, never rename. Merged into ErrorCodes. */
export const LlmErrorCodes = {
  // Upstream (Anthropic API or a compatible server such as the simulator)
  llmOverloaded: 'LLM.OVERLOADED',
  llmRateLimited: 'LLM.RATE_LIMITED',
  llmTimeout: 'LLM.TIMEOUT',
  llmConnectionFailed: 'LLM.CONNECTION_FAILED',
  llmBadRequest: 'LLM.BAD_REQUEST',
  llmAuthenticationFailed: 'LLM.AUTHENTICATION_FAILED',
  llmPermissionDenied: 'LLM.PERMISSION_DENIED',
  llmModelNotFound: 'LLM.MODEL_NOT_FOUND',
  llmContextTooLarge: 'LLM.CONTEXT_TOO_LARGE',
  llmAborted: 'LLM.ABORTED',
  llmUpstreamError: 'LLM.UPSTREAM_ERROR',
  // Local configuration and request building
  llmUnknownModelAlias: 'LLM.UNKNOWN_MODEL_ALIAS',
  llmInheritWithoutParent: 'LLM.INHERIT_WITHOUT_PARENT',
  llmThinkingBudgetInvalid: 'LLM.THINKING_BUDGET_INVALID',
  llmCacheLayoutInvalid: 'LLM.CACHE_LAYOUT_INVALID',
  // The offline Messages-API simulator
  simulatorNoScenario: 'SIMULATOR.NO_SCENARIO',
  simulatorScenarioInvalid: 'SIMULATOR.SCENARIO_INVALID',
  simulatorScenarioDuplicate: 'SIMULATOR.SCENARIO_DUPLICATE',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const LlmHttpStatus: Record<string, number> = {
  [LlmErrorCodes.llmOverloaded]: 503,
  [LlmErrorCodes.llmRateLimited]: 429,
  [LlmErrorCodes.llmConnectionFailed]: 502,
  [LlmErrorCodes.llmBadRequest]: 502,
  [LlmErrorCodes.llmAuthenticationFailed]: 502,
  [LlmErrorCodes.llmPermissionDenied]: 502,
  [LlmErrorCodes.llmModelNotFound]: 502,
  [LlmErrorCodes.llmContextTooLarge]: 413,
  [LlmErrorCodes.llmAborted]: 503,
  [LlmErrorCodes.llmUpstreamError]: 502,
  [LlmErrorCodes.llmUnknownModelAlias]: 400,
  [LlmErrorCodes.llmInheritWithoutParent]: 400,
  [LlmErrorCodes.llmCacheLayoutInvalid]: 500,
  [LlmErrorCodes.simulatorNoScenario]: 500,
  [LlmErrorCodes.simulatorScenarioInvalid]: 500,
  [LlmErrorCodes.simulatorScenarioDuplicate]: 500,
};
