import {
  apiTokenIdParamsSchema,
  apiTokenViewSchema,
  createApiTokenRequestSchema,
  createdApiTokenSchema,
  pageQuerySchema,
} from '@headspace/contracts';
import { z } from 'zod';
import { objectBody, type ApiRoute } from './api-route';

const tag = 'tokens';
type CreateInput = z.output<typeof createApiTokenRequestSchema>;

export const tokenRoutes: ApiRoute[] = [
  {
    operationId: 'createToken',
    method: 'POST',
    path: '/api/v1/tokens',
    tag,
    summary: 'Issue an API token (the plaintext is in this answer only)',
    role: 'admin',
    team: 'none',
    status: 201,
    body: 'json',
    request: createApiTokenRequestSchema,
    response: createdApiTokenSchema,
    build: ({ body }) => objectBody(body),
    call: async (_input, ctx) => {
      const input = ctx.parsed as CreateInput;
      const { token, view } =
        ctx.idempotencyKey && ctx.callerToken
          ? await ctx.tokens.createOnce(input, { issuerTokenId: ctx.principal.tokenId, idempotencyKey: ctx.idempotencyKey, issuerToken: ctx.callerToken })
          : await ctx.tokens.create(input);
      return { id: view.id, token, name: view.name, role: view.role, teams: view.teams, projects: view.projects };
    },
  },
  {
    operationId: 'listTokens',
    method: 'GET',
    path: '/api/v1/tokens',
    tag,
    summary: 'API tokens (never their secrets)',
    role: 'admin',
    team: 'none',
    status: 200,
    query: pageQuerySchema,
    request: z.object({}),
    response: z.object({ tokens: z.array(apiTokenViewSchema) }),
    build: () => ({}),
    call: async (_input, ctx) => ({ tokens: await ctx.tokens.list() }),
    list: { field: 'tokens', key: (t: { createdAt: string; id: string }) => `${t.createdAt}|${t.id}` },
  },
  {
    operationId: 'revokeToken',
    method: 'DELETE',
    path: '/api/v1/tokens/:id',
    tag,
    summary: 'Revoke an API token (refused from the next request on)',
    role: 'admin',
    team: 'none',
    status: 204,
    request: apiTokenIdParamsSchema,
    response: z.undefined(),
    build: ({ params }) => params,
    call: async (input: { id: string }, ctx) => {
      await ctx.tokens.revoke(input.id);
      return undefined;
    },
  },
];
