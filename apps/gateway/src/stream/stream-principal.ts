import { timingSafeEqual } from 'node:crypto';
import type { AuthenticatedRequest, Principal } from '../auth/principal';

/**
 * The caller of the stream. The gateway's auth guard resolves bearer tokens (header, or
 * `?access_token=` for this route, since EventSource cannot set headers) and attaches
 * `request.principal`; that is what counts. Without a guard in front (a gateway built without the
 * auth module), the admin token of `HS_ADMIN_TOKEN` is accepted here so the stream never runs open.
 */
export function streamPrincipal(request: AuthenticatedRequest, env: NodeJS.ProcessEnv = process.env): Principal | undefined {
  if (request.principal) return request.principal;
  const adminToken = env.HS_ADMIN_TOKEN;
  const presented = bearerOf(request);
  if (!adminToken || !presented || !sameSecret(presented, adminToken)) return undefined;
  return { tokenId: 'admin-env', name: 'admin', role: 'admin', teams: '*', projects: '*' };
}

function bearerOf(request: AuthenticatedRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (match) return match[1];
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.access_token === 'string' && query.access_token !== '' ? query.access_token : undefined;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
