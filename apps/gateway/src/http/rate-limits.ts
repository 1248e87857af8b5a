import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIngestRequest, isPublicRequest } from '../auth/access-policy';
import type { AuthenticatedRequest } from '../auth/principal';

export interface RateLimitSettings {
  /** Requests per client address in each window, counted before the token is looked up. */
  addressMax: number;
  /** Requests per token (per address for a request without a valid one) in each window. */
  tokenMax: number;
  /** Requests per token in each window to the routes that spend money (SPEND_ROUTES). */
  spendMax: number;
  windowMs: number;
}

/**
 * Routes whose call can start model spending: starting a run, answering a run (accepting a spec or
 * a plan starts the builders), answering an approval (a budget overrun among them) and resolving a
 * budget pause. Matched by Fastify's route pattern, not by the URL a client wrote.
 */
export const SPEND_ROUTES = new Set([
  'POST /api/v1/teams/:team/runs',
  'POST /api/v1/teams/:team/asks',
  'POST /api/v1/teams/:team/runs/:runId/answer',
  'POST /api/v1/teams/:team/approvals/:approvalId/answer',
  'POST /api/v1/budgets/:budgetId/resolve',
]);

export const isSpendRoute = (req: FastifyRequest) => SPEND_ROUTES.has(`${req.method} ${req.routeOptions?.url ?? ''}`);

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * The gateway's three limiters, as Fastify onRequest hooks (the rate-limit plugin must already be
 * registered). `beforeAuth` runs before the token lookup, keyed by client address: a flood of
 * made-up tokens is answered 429 from memory and never reaches PostgreSQL. `afterAuth` runs once
 * the principal is known, keyed by token, with the stricter spend limit on SPEND_ROUTES.
 * Counters are per gateway replica (in memory).
 */
export function rateLimitHooks(fastify: FastifyInstance, settings: RateLimitSettings) {
  const limiter = (max: number, key: (req: FastifyRequest) => string) =>
    fastify.createRateLimit({ max, timeWindow: settings.windowMs, keyGenerator: key });
  const tokenKey = (req: FastifyRequest) => {
    const principal = (req as AuthenticatedRequest).principal;
    return principal ? `token:${principal.tokenId}` : `ip:${req.ip}`;
  };
  const byAddress = limiter(settings.addressMax, (req) => `addr:${req.ip}`);
  const byToken = limiter(settings.tokenMax, tokenKey);
  const bySpend = limiter(settings.spendMax, (req) => `spend:${tokenKey(req)}`);

  return {
    beforeAuth: async (req: FastifyRequest, reply: FastifyReply) => {
      if (!isPublicRequest(req)) await enforce(byAddress, req, reply, 'client address');
    },
    afterAuth: async (req: FastifyRequest, reply: FastifyReply) => {
      // Ingest requests carry no token: their address limit is above, their project's limit in ops-leon.
      if (isPublicRequest(req) || isIngestRequest(req)) return;
      await enforce(byToken, req, reply, 'token');
      if (isSpendRoute(req)) await enforce(bySpend, req, reply, 'token on routes that spend money');
    },
  };
}

async function enforce(limiter: Limiter, req: FastifyRequest, reply: FastifyReply, scope: string): Promise<void> {
  const result = await limiter(req);
  if (result.isAllowed || !result.isExceeded) return;
  reply.header('retry-after', String(result.ttlInSeconds));
  reply.header('x-ratelimit-limit', String(result.max));
  reply.header('x-ratelimit-remaining', '0');
  throw new HeadspaceError(ErrorCodes.gatewayRateLimited, `Rate limit of ${result.max} requests per ${scope} exceeded; retry in ${result.ttlInSeconds} s`);
}
