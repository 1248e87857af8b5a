import { ValidationError, type RequestDefinition } from '@headspace/contracts';
import type { z } from 'zod';
import type { GatewayRole, Principal } from '../auth/principal';
import type { TokenService } from '../tokens/token.service';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestParts {
  params: Record<string, string>;
  /** The query string parsed by the route's `query` schema (paging fields removed). */
  query: Record<string, unknown>;
  rawQuery: Record<string, unknown>;
  body: unknown;
}

export interface CallContext {
  params: Record<string, string>;
  principal: Principal;
  tokens: TokenService;
  /**
   * The request as the route's schema parsed it (transforms and defaults applied), for work the
   * gateway does itself. Never send it: `call` gets the untransformed form for that.
   */
  parsed: unknown;
  /** The request's Idempotency-Key (commands sent with `send` carry it as their command id). */
  idempotencyKey?: string;
  /** The caller's bearer token: only to seal an answer that this caller alone may be shown again. */
  callerToken?: string;
  /** A provider of the gateway, for routes the gateway serves itself (webhook subscriptions). */
  get<T>(type: abstract new (...args: never[]) => T): T;
  /** A NATS command or query; commands carry the request's Idempotency-Key as their command id. */
  send<D extends RequestDefinition>(definition: D, body: z.input<D['request']>): Promise<z.output<D['response']>>;
}

export interface ListSpec {
  /** The array field of the response that is paged; the rest of the response is kept beside it. */
  field: string;
  /** Stable, unique sort key of an item: pages are cut by it. */
  key: (item: never) => string;
  /** Items the caller may not see are dropped (e.g. teams outside a token's scope). */
  visible?: (item: never, principal: Principal) => boolean;
}

/** One REST operation: the single table that drives routing, auth, OpenAPI and the fuzz test. */
export interface ApiRoute {
  operationId: string;
  method: HttpMethod;
  /** Fastify-style path, e.g. `/api/v1/teams/:team/tasks/:taskId/claim`. */
  path: string;
  tag: string;
  summary: string;
  /** Least role allowed to call it. */
  role: GatewayRole;
  /**
   * Where the team the call acts on comes from, for the token's team scope: the `:team` path
   * parameter, the raw path + query parameters (checked by the guard, before parsing), or the
   * parsed request (checked after parsing). An empty team passes only tokens of every team.
   */
  team: 'path' | 'none' | { fromRequest: (raw: Record<string, unknown>) => string } | ((input: never) => string);
  /** The `:project` path parameter is checked against the token's project scope. */
  project?: 'path';
  status: number;
  /** Takes a request body (JSON, or also `application/yaml` text). */
  body?: 'json' | 'json-or-yaml';
  query?: z.ZodObject;
  /** The schema the request (path params merged over body or query) is parsed by. */
  request: z.ZodType;
  response: z.ZodType;
  build: (parts: RequestParts) => unknown;
  /**
   * `input` is the built request once the schema accepted it, untransformed (its `z.input` form, see
   * `wire-form.ts`): what is sent over NATS, where the serving side parses it again.
   */
  call: (input: never, ctx: CallContext) => Promise<unknown>;
  list?: ListSpec;
}

export const pathParams = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);

export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError('request body', [{ field: '(root)', message: 'must be a JSON object' }]);
  }
  return body as Record<string, unknown>;
}

type RouteOptions = Partial<Omit<ApiRoute, 'path' | 'tag' | 'summary' | 'operationId'>> &
  Pick<ApiRoute, 'path' | 'tag' | 'summary' | 'operationId'>;

/** A command over NATS: body + path params → the contract's request. */
export function commandRoute(definition: RequestDefinition, options: RouteOptions): ApiRoute {
  return {
    method: 'POST',
    role: 'operator',
    team: options.path.includes(':team') ? 'path' : 'none',
    status: 200,
    body: 'json',
    request: definition.request,
    response: definition.response,
    build: ({ params, body }) => ({ ...objectBody(body), ...params }),
    call: (input, ctx) => ctx.send(definition, input),
    ...options,
  };
}

/** A query over NATS: query string + path params → the contract's request. */
export function queryRoute(definition: RequestDefinition, options: RouteOptions): ApiRoute {
  return {
    method: 'GET',
    role: 'viewer',
    team: options.path.includes(':team') ? 'path' : 'none',
    status: 200,
    request: definition.request,
    response: definition.response,
    build: ({ params, query }) => ({ ...query, ...params }),
    call: (input, ctx) => ctx.send(definition, input),
    ...options,
  };
}
