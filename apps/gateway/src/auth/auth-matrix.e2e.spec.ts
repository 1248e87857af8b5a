import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayRole } from './principal';
import { apiRoutes } from '../routes/api-routes';
import type { ApiRoute } from '../routes/api-route';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

const PARAMS: Record<string, string> = {
  team: 'alpha',
  taskId: 'design',
  member: 'con',
  memberId: 'con',
  approvalId: 'no-such-approval',
  personaId: 'zed',
  pool: 'backend',
  requestId: 'no-such-request',
  leaseId: 'no-such-lease',
  holder: 'al',
  id: randomUUID(),
  budgetId: 'team.alpha',
  project: 'proj',
};

/** GETs also name the team in the query: report routes take their team scope from it. */
const urlOf = (route: ApiRoute) =>
  route.path.replace(/:(\w+)/g, (_, name: string) => PARAMS[name]) + (route.method === 'GET' ? '?team=alpha' : '');
/** Team creation names its team in the body: the scope check needs it. */
const bodyOf = (route: ApiRoute) => (route.operationId === 'createTeam' ? { name: 'alpha' } : {});

type Caller = 'anonymous' | GatewayRole | 'other-team';
const rank: Record<GatewayRole, number> = { viewer: 0, operator: 1, admin: 2 };

/** The team a matrix request acts on ('' = none named), or undefined when the route is not team-scoped. */
function teamOf(route: ApiRoute): string | undefined {
  if (route.team === 'none') return undefined;
  if (route.team === 'path') return PARAMS.team;
  if (typeof route.team === 'object') return route.team.fromRequest({ team: 'alpha', ...PARAMS });
  return 'alpha'; // from the body: createTeam names alpha; the others are admin-only
}

/** viewer and admin tokens cover every team; the operator covers alpha; the other-team operator covers other. */
function expected(route: ApiRoute, caller: Caller): 401 | 403 | 'allowed' {
  if (caller === 'anonymous') return 401;
  const role: GatewayRole = caller === 'other-team' ? 'operator' : caller;
  if (rank[role] < rank[route.role]) return 403;
  const team = teamOf(route);
  if (team === undefined || caller === 'viewer' || caller === 'admin') return 'allowed';
  return caller === 'operator' && team === 'alpha' ? 'allowed' : 403;
}

describe('auth matrix: every registered route × every kind of caller', () => {
  let h: GatewayHarness;
  const tokens: Partial<Record<Caller, string>> = {};
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwauth' });
    tokens.viewer = await h.issueToken('viewer', '*');
    tokens.operator = await h.issueToken('operator', ['alpha']);
    tokens.admin = h.adminToken;
    tokens['other-team'] = await h.issueToken('operator', ['other']);
  });
  afterAll(async () => h?.close());

  const callers: Caller[] = ['anonymous', 'viewer', 'operator', 'admin', 'other-team'];
  it.each(apiRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers 401/403/allowed as its role and scope say', async (_name, route) => {
    for (const caller of callers) {
      const res = await h.call(
        { method: route.method, url: urlOf(route), ...(route.body ? { payload: bodyOf(route) } : {}) },
        tokens[caller],
      );
      const want = expected(route, caller);
      const got = res.statusCode === 401 || res.statusCode === 403 ? res.statusCode : 'allowed';
      expect({ caller, status: got }).toEqual({ caller, status: want });
      if (want !== 'allowed') expect(res.headers['content-type']).toContain('application/problem+json');
      if (want === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('the public routes need no token', async () => {
    for (const url of ['/health/live', '/api/openapi.json', '/api/docs']) {
      expect((await h.call({ method: 'GET', url })).statusCode).toBe(200);
    }
  });

  it('/metrics is not served on the public port, with or without a token (it lives on METRICS_PORT)', async () => {
    for (const token of [undefined, h.adminToken]) {
      const res = await h.call({ method: 'GET', url: '/metrics' }, token);
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toMatch(/^# (TYPE|HELP) /m);
    }
  });

  it('a malformed Authorization header or an unknown token is 401', async () => {
    expect((await h.call({ method: 'GET', url: '/api/v1/personas', headers: { authorization: 'Basic abc' } })).statusCode).toBe(401);
    expect((await h.call({ method: 'GET', url: '/api/v1/personas' }, 'hst_not-a-real-token')).statusCode).toBe(401);
  });

  it('?access_token= is accepted on the event stream only', async () => {
    const res = await h.call({ method: 'GET', url: `/api/v1/personas?access_token=${h.adminToken}` });
    expect(res.statusCode).toBe(401);
  });
});
