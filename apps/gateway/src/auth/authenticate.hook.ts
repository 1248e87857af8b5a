import type { FastifyRequest } from 'fastify';
import type { TokenService } from '../tokens/token.service';
import { acceptsQueryToken, isIngestRequest, isPublicRequest } from './access-policy';
import type { AuthenticatedRequest } from './principal';

export type AuthenticatingRequest = AuthenticatedRequest & { authFailure?: string };

export function presentedToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1] : undefined;
  }
  if (!acceptsQueryToken(req.method, req.url)) return undefined;
  const token = (req.query as Record<string, unknown> | undefined)?.access_token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/**
 * Fastify onRequest hook: resolves the bearer token to `request.principal` before the rate limiter
 * (keyed by token) and the guard (which decides 401/403) run. It never rejects by itself.
 */
export function authenticateHook(tokens: TokenService) {
  return async (req: FastifyRequest): Promise<void> => {
    if (isPublicRequest(req) || isIngestRequest(req)) return;
    const request = req as AuthenticatingRequest;
    const token = presentedToken(req);
    if (token === undefined) {
      request.authFailure = req.headers.authorization ? 'The Authorization header must be "Bearer <token>"' : 'A bearer token is required';
      return;
    }
    if (token.length > 512) {
      request.authFailure = 'The token is not valid';
      return;
    }
    const principal = await tokens.verify(token);
    if (principal) request.principal = principal;
    else request.authFailure = 'The token is unknown or revoked';
  };
}
