/** Error codes of the gateway area. Stable: add, never rename. Merged into ErrorCodes. */
export const GatewayErrorCodes = {
  authUnauthenticated: 'AUTH.UNAUTHENTICATED',
  authForbidden: 'AUTH.FORBIDDEN',
  gatewayRouteNotFound: 'GATEWAY.ROUTE_NOT_FOUND',
  gatewayBadJson: 'GATEWAY.BAD_JSON',
  gatewayPayloadTooLarge: 'GATEWAY.PAYLOAD_TOO_LARGE',
  gatewayUnsupportedMediaType: 'GATEWAY.UNSUPPORTED_MEDIA_TYPE',
  gatewayRateLimited: 'GATEWAY.RATE_LIMITED',
  /** A token already holds HS_SSE_MAX_STREAMS_PER_TOKEN open event streams on this gateway. */
  gatewayTooManyStreams: 'GATEWAY.TOO_MANY_STREAMS',
  gatewayBadRequest: 'GATEWAY.BAD_REQUEST',
  gatewayUriTooLong: 'GATEWAY.URI_TOO_LONG',
  gatewayCursorInvalid: 'GATEWAY.CURSOR_INVALID',
  gatewayIdempotencyKeyInvalid: 'GATEWAY.IDEMPOTENCY_KEY_INVALID',
  gatewayHeadersTooLarge: 'GATEWAY.HEADERS_TOO_LARGE',
  gatewayClientTimeout: 'GATEWAY.CLIENT_TIMEOUT',
  gatewayShuttingDown: 'GATEWAY.SHUTTING_DOWN',
  gatewayIdempotencyKeyReused: 'GATEWAY.IDEMPOTENCY_KEY_REUSED',
  gatewayIdempotencyReplayExpired: 'GATEWAY.IDEMPOTENCY_REPLAY_EXPIRED',
  apiTokenNotFound: 'TOKEN.NOT_FOUND',
  webhookNotFound: 'WEBHOOK.NOT_FOUND',
  webhookDeliveryNotFound: 'WEBHOOK.DELIVERY_NOT_FOUND',
  /** HS_WEBHOOK_SECRET_KEY is not set: subscription secrets cannot be sealed or opened (503). */
  webhookSecretKeyUnavailable: 'WEBHOOK.SECRET_KEY_UNAVAILABLE',
} as const;

/** HTTP status for codes of this area that the suffix rules of http-status.ts would map wrongly. */
export const GatewayHttpStatus: Record<string, number> = {
  [GatewayErrorCodes.gatewayBadJson]: 400,
  [GatewayErrorCodes.gatewayBadRequest]: 400,
  [GatewayErrorCodes.gatewayPayloadTooLarge]: 413,
  [GatewayErrorCodes.gatewayUriTooLong]: 414,
  [GatewayErrorCodes.gatewayUnsupportedMediaType]: 415,
  [GatewayErrorCodes.gatewayRateLimited]: 429,
  [GatewayErrorCodes.gatewayTooManyStreams]: 429,
  [GatewayErrorCodes.gatewayHeadersTooLarge]: 431,
  [GatewayErrorCodes.gatewayClientTimeout]: 408,
  [GatewayErrorCodes.gatewayShuttingDown]: 503,
  // The key was first used with another request (IETF idempotency-key draft: 422).
  [GatewayErrorCodes.gatewayIdempotencyKeyReused]: 422,
  [GatewayErrorCodes.gatewayIdempotencyReplayExpired]: 409,
};
