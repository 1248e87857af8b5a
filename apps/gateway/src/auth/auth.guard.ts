import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { ApiRoute } from '../routes/api-route';
import { API_ROUTE } from '../routes/registry.controller';
import { canSeeProject, defaultRoleFor, isPublicRequest, roleAtLeast } from './access-policy';
import type { AuthenticatingRequest } from './authenticate.hook';
import { canSeeTeam } from './principal';

/**
 * Global guard: 401 without a valid token, 403 below the route's role or outside the token's team
 * scope. Teams named in a body (team creation) are checked after parsing, by the dispatcher.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<AuthenticatingRequest>();
    if (isPublicRequest(req)) return true;
    const principal = req.principal;
    if (!principal) throw new HeadspaceError(ErrorCodes.authUnauthenticated, req.authFailure ?? 'A bearer token is required');
    const route = this.reflector.get<ApiRoute | undefined>(API_ROUTE, context.getHandler());
    const required = route?.role ?? defaultRoleFor(req.method);
    if (!roleAtLeast(principal, required)) {
      throw new HeadspaceError(ErrorCodes.authForbidden, `This operation needs the ${required} role; the token has ${principal.role}`);
    }
    if (!route) return true;
    const params = (req.params ?? {}) as Record<string, string>;
    const team =
      route.team === 'path'
        ? params.team
        : typeof route.team === 'object'
          ? route.team.fromRequest({ ...(req.query as Record<string, unknown>), ...params })
          : undefined;
    if (team !== undefined && !canSeeTeam(principal, team)) {
      throw new HeadspaceError(ErrorCodes.authForbidden, team ? `This token may not act on team "${team}"` : 'This token is limited to some teams: name one');
    }
    if (route.project === 'path' && !canSeeProject(principal, params.project)) {
      throw new HeadspaceError(ErrorCodes.authForbidden, `This token may not act on project "${params.project}"`);
    }
    return true;
  }
}
