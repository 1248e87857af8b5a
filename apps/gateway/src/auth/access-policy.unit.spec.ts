import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { acceptsQueryToken, defaultRoleFor, isPublicPath, roleAtLeast } from './access-policy';
import { presentedToken } from './authenticate.hook';
import type { Principal } from './principal';

const principal = (role: Principal['role']): Principal => ({ tokenId: 't', name: 'n', role, teams: '*', projects: '*' });
const request = (method: string, url: string, headers: Record<string, string> = {}, query: Record<string, string> = {}) =>
  ({ method, url, headers, query }) as unknown as FastifyRequest;

describe('access policy', () => {
  it('orders roles viewer < operator < admin', () => {
    expect(roleAtLeast(principal('viewer'), 'operator')).toBe(false);
    expect(roleAtLeast(principal('operator'), 'operator')).toBe(true);
    expect(roleAtLeast(principal('operator'), 'admin')).toBe(false);
    expect(roleAtLeast(principal('admin'), 'viewer')).toBe(true);
  });

  it('keeps only probes and the API description public', () => {
    for (const url of ['/health/live', '/health/ready', '/api/openapi.json', '/api/docs?x=1']) expect(isPublicPath(url)).toBe(true);
    for (const url of ['/api/v1/teams', '/metrics', '/metrics/x', '/api/docs/../v1/tokens', '/healthz', '/health/../api/v1/tokens']) expect(isPublicPath(url)).toBe(false);
  });

  it('routes outside the table need a viewer to read and an operator to write', () => {
    expect(defaultRoleFor('GET')).toBe('viewer');
    expect(defaultRoleFor('POST')).toBe('operator');
    expect(defaultRoleFor('DELETE')).toBe('operator');
  });

  it('takes the bearer header anywhere and ?access_token= only on GET /api/v1/stream', () => {
    expect(presentedToken(request('GET', '/api/v1/teams', { authorization: 'Bearer abc' }))).toBe('abc');
    expect(presentedToken(request('GET', '/api/v1/teams', { authorization: 'Basic abc' }))).toBeUndefined();
    expect(acceptsQueryToken('GET', '/api/v1/stream?access_token=x')).toBe(true);
    expect(presentedToken(request('GET', '/api/v1/stream?access_token=q', {}, { access_token: 'q' }))).toBe('q');
    expect(presentedToken(request('GET', '/api/v1/teams?access_token=q', {}, { access_token: 'q' }))).toBeUndefined();
    expect(presentedToken(request('POST', '/api/v1/stream?access_token=q', {}, { access_token: 'q' }))).toBeUndefined();
  });
});
