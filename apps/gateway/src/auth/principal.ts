import type { FastifyRequest } from 'fastify';

export const gatewayRoles = ['viewer', 'operator', 'admin'] as const;
export type GatewayRole = (typeof gatewayRoles)[number];

/** Who is calling: resolved from the bearer token by the auth guard, attached to the request. */
export interface Principal {
  tokenId: string;
  name: string;
  role: GatewayRole;
  /** Teams the token may see and act on; '*' = every team. */
  teams: readonly string[] | '*';
  /** Projects the token may see and act on; '*' = every project. */
  projects: readonly string[] | '*';
}

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/** True when the principal may see things of `team` (events, tasks, mail…). */
export function canSeeTeam(principal: Principal, team: string | undefined): boolean {
  if (principal.teams === '*') return true;
  return team !== undefined && principal.teams.includes(team);
}
