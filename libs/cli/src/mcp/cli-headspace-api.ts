import type { HeadspaceApi } from '@headspace/mcp-server';
import { ApiError, type ApiClient } from '../api-client';

/**
 * The MCP tools' port for `headspace mcp`: the CLI's own API client (its endpoint, token and
 * read-your-writes positions). A refusal comes back as its status and problem for the tool result;
 * only an unreachable gateway rejects. Success bodies are what matters to a tool, so any 2xx is 200.
 */
export function cliHeadspaceApi(client: ApiClient): HeadspaceApi {
  return {
    async call(method, path, body, options) {
      const headers = options?.idempotencyKey ? { headers: { 'idempotency-key': options.idempotencyKey } } : {};
      try {
        return { status: 200, json: await client.request(method, path, { ...(body !== undefined ? { body } : {}), ...headers }) };
      } catch (error) {
        if (error instanceof ApiError) return { status: error.status, json: error.problem };
        throw error;
      }
    },
  };
}
