import type { HeadspaceApi } from '@headspace/mcp-server';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const REST_PREFIX = '/api/v1/';

/**
 * The MCP tools' port on the gateway: each REST call is injected into this same Fastify instance
 * as the MCP caller (their Authorization header, their address), so it passes the very hooks,
 * guard, rate limits and validation an HTTP client's call would; a write tool's `idempotency_key`
 * goes as its `Idempotency-Key` header.
 */
export function injectHeadspaceApi(fastify: FastifyInstance, caller: FastifyRequest): HeadspaceApi {
  const authorization = caller.headers.authorization;
  return {
    async call(method, path, body, options) {
      // Tools build their paths from constants with encoded segments; this keeps it that way.
      if (!path.startsWith(REST_PREFIX)) throw new Error(`An MCP tool may only call the REST API, not ${path}`);
      const res = await fastify.inject({
        method,
        url: path,
        remoteAddress: caller.ip,
        headers: {
          accept: 'application/json',
          ...(authorization ? { authorization } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(options?.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, json: parseJson(res.body) };
    },
  };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 300) };
  }
}
