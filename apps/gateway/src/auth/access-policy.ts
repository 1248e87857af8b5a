import { gatewayRoles, type GatewayRole, type Principal } from './principal';

/** True when the principal may see things of `project`. */
export function canSeeProject(principal: Principal, project: string | undefined): boolean {
  if (principal.projects === '*') return true;
  return project !== undefined && principal.projects.includes(project);
}

const rank = (role: GatewayRole) => gatewayRoles.indexOf(role);

export const roleAtLeast = (principal: Principal, required: GatewayRole) => rank(principal.role) >= rank(required);

/** Paths anyone may call: probes and the API and event descriptions (metrics are on the internal METRICS_PORT, not here). */
const PUBLIC_PATH = /^\/(?:health\/(?:live|ready)|api\/(?:openapi|asyncapi)\.json|api\/docs(?:\/events)?)$/;

export const pathOf = (url: string) => url.split('?', 1)[0];

export const isPublicPath = (url: string) => PUBLIC_PATH.test(pathOf(url));

/** Judged by the route Fastify matched when there is one, not by the raw URL a client wrote. */
export const isPublicRequest = (req: { url: string; routeOptions?: { url?: string } }) => isPublicPath(req.routeOptions?.url ?? req.url);

/**
 * Exception ingest (src/ops-ingest): authenticated by the project's ingest key, never by a bearer
 * token (a key can only ingest), and still limited per client address.
 */
const INGEST_PATH = /^\/api\/(?:v1\/ops\/projects\/[^/]+\/exceptions|[^/]+\/(?:envelope|store))\/?$/;

export const isIngestRequest = (req: { url: string; routeOptions?: { url?: string } }) => INGEST_PATH.test(pathOf(req.routeOptions?.url ?? req.url));

/** The one route that also takes `?access_token=` (browsers' EventSource cannot set headers). */
export const acceptsQueryToken = (method: string, url: string) => method === 'GET' && pathOf(url) === '/api/v1/stream';

/** Routes outside the route table (e.g. the event stream): reading needs a viewer, anything else an operator. */
export const defaultRoleFor = (method: string): GatewayRole => (method === 'GET' || method === 'HEAD' ? 'viewer' : 'operator');
