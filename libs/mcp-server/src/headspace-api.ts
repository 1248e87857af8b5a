export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What the REST API answered: the status and the parsed JSON body (problem+json for a 4xx/5xx). */
export interface ApiReply {
  status: number;
  json: unknown;
}

/**
 * The one port of the MCP server: a call to the gateway's REST API as the MCP caller. Every tool goes
 * through it, so validation, roles, team and project scopes, rate limits and idempotency are REST's.
 * The gateway forwards in-process with the caller's token; the CLI calls over HTTP with its own.
 * It rejects only when REST could not be reached at all.
 */
export interface HeadspaceApi {
  call(method: ApiMethod, path: string, body?: unknown, options?: ApiCallOptions): Promise<ApiReply>;
}

/** What a call carries beside its body. */
export interface ApiCallOptions {
  /** Sent as the `Idempotency-Key` header: REST answers a repeat of a command with its first result. */
  idempotencyKey?: string;
}
