import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ApiRoute } from '../routes/api-route';

export interface FuzzRequest {
  kind: string;
  method: ApiRoute['method'];
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}

/** Small seeded PRNG (mulberry32): the same seed gives the same requests. */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)], int: (max: number) => Math.floor(next() * max) };
}

export const VALID_PARAMS: Record<string, string> = {
  team: 'fuzz',
  taskId: 't1',
  member: 'con',
  memberId: 'con',
  approvalId: 'a1',
  personaId: 'zed',
  pool: 'backend',
  requestId: 'r1',
  leaseId: 'l1',
  holder: 'al',
  id: '00000000-0000-4000-8000-000000000001',
  budgetId: 'team.fuzz',
  project: 'fuzz',
};

/** Values each path parameter's schema refuses (every one also refuses 300 characters). */
const BAD_PARAMS: Record<string, string[]> = {
  team: ['Bad_Team', 'UPPER', '-lead', 'a.b'],
  taskId: ['bad.id', '-x', 'a b'],
  member: ['-x', 'a b', 'a.b'],
  memberId: ['-x', 'a b', '!'],
  personaId: ['UPPER', '9abc', 'a_b'],
  pool: ['UPPER', '9abc'],
  id: ['not-a-uuid', '123'],
  approvalId: ['x'.repeat(101)],
  requestId: ['x'.repeat(101)],
  leaseId: ['x'.repeat(101)],
  holder: ['x'.repeat(201)],
  budgetId: ['x'.repeat(301)],
  project: ['x'.repeat(201)],
  runId: ['UPPER', 'a.b', 'x'.repeat(64)],
};

const BAD_JSON = ['{"name": ', '{', '{"a":1,}', '[1,2', 'nul', "{'a':1}", '{"a":"\\x"}'];
const OTHER_TYPES = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'image/png'];
const NON_OBJECTS = ['[1,2]', '42', 'true', '[]', '[{"name":"x"}]'];

type JsonSchema = { type?: unknown; maxLength?: number; properties?: Record<string, JsonSchema>; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] };

function bodyProperties(route: ApiRoute): Array<[string, JsonSchema]> {
  const schema = z.toJSONSchema(route.request, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const params = new Set(Object.keys(VALID_PARAMS));
  const from = schema.properties ?? (schema.oneOf ?? schema.anyOf)?.[0]?.properties ?? {};
  return Object.entries(from).filter(([name, s]) => !params.has(name) && typeof s.type === 'string');
}

const wrongValue = (type: string): unknown =>
  ({ string: 12345, number: 'abc', integer: 1.5, boolean: 'yes', array: { not: 'an array' }, object: 'not an object' })[type] ?? null;

const urlOf = (route: ApiRoute, override: Record<string, string> = {}) =>
  route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(override[name] ?? VALID_PARAMS[name]));

/** Requests every one of which the API must refuse with a 4xx problem, writing nothing. */
export function malformedRequests(routes: readonly ApiRoute[], count: number, seed = 7): FuzzRequest[] {
  const r = seeded(seed);
  const out: FuzzRequest[] = [];
  const jsonHeaders = { 'content-type': 'application/json' };
  for (let i = 0; out.length < count; i++) {
    const route = routes[i % routes.length];
    const params = route.path.match(/:(\w+)/g)?.map((p) => p.slice(1)) ?? [];
    const kinds = [
      ...(route.body ? ['bad-json', 'content-type', 'non-object', 'wrong-type', 'huge-string', 'oversize'] : []),
      ...(params.length ? ['bad-param', 'huge-param'] : []),
      ...(route.query ? ['bad-query'] : []),
      ...(route.method === 'POST' ? ['bad-idempotency-key'] : []),
    ];
    if (kinds.length === 0) continue;
    const kind = r.pick(kinds);
    const base = { kind, method: route.method, url: urlOf(route) };
    switch (kind) {
      case 'bad-json':
        out.push({ ...base, headers: jsonHeaders, payload: r.pick(BAD_JSON) });
        break;
      case 'content-type':
        out.push({ ...base, headers: { 'content-type': r.pick(OTHER_TYPES) }, payload: 'name=x&<team/>' });
        break;
      case 'non-object':
        out.push({ ...base, headers: jsonHeaders, payload: r.pick(NON_OBJECTS) });
        break;
      case 'wrong-type': {
        const props = bodyProperties(route);
        if (props.length === 0) continue;
        const [name, schema] = r.pick(props);
        out.push({ ...base, headers: jsonHeaders, payload: JSON.stringify({ [name]: wrongValue(schema.type as string) }) });
        break;
      }
      case 'huge-string': {
        const props = bodyProperties(route).filter(([, s]) => s.type === 'string' && typeof s.maxLength === 'number');
        if (props.length === 0) continue;
        const [name, schema] = r.pick(props);
        const length = (schema.maxLength as number) + 1 + r.int(schema.maxLength as number);
        out.push({ ...base, headers: jsonHeaders, payload: JSON.stringify({ [name]: 'x'.repeat(length) }) });
        break;
      }
      case 'oversize':
        out.push({ ...base, headers: jsonHeaders, payload: JSON.stringify({ blob: 'x'.repeat(1_100_000) }) });
        break;
      case 'bad-param':
      case 'huge-param': {
        const name = r.pick(params);
        const value = kind === 'huge-param' ? 'x'.repeat(300 + r.int(2_000)) : r.pick(BAD_PARAMS[name]);
        out.push({ ...base, url: urlOf(route, { [name]: value }), ...(route.body ? { headers: jsonHeaders, payload: '{}' } : {}) });
        break;
      }
      case 'bad-query': {
        const shape = Object.keys(route.query?.shape ?? {});
        const bad: Record<string, string[]> = {
          limit: ['abc', '0', '-1', '501', '9'.repeat(400), '1.5'],
          cursor: ['%%%', 'bm90LWpzb24', Buffer.from('{"k":1}').toString('base64url'), 'x'.repeat(1_001)],
          status: ['bogus'],
          blocked: ['maybe'],
          unreadOnly: ['perhaps'],
          kind: ['nope'],
          pool: ['UPPER'],
          owner: ['x'.repeat(201)],
          file: ['x'.repeat(501)],
          holder: ['x'.repeat(201)],
          to: ['x'.repeat(101)],
          team: ['x'.repeat(201)],
          project: ['x'.repeat(201)],
          sessionId: ['x'.repeat(201)],
          persona: ['x'.repeat(201)],
          from: ['yesterday'],
          groupBy: ['nope'],
        };
        const name = r.pick(shape.filter((k) => bad[k]));
        out.push({ ...base, url: `${base.url}?${name}=${encodeURIComponent(r.pick(bad[name]))}` });
        break;
      }
      case 'bad-idempotency-key':
        out.push({ ...base, headers: { ...jsonHeaders, 'idempotency-key': r.pick(['k'.repeat(201 + r.int(500)), 'a b', 'tab\there']) }, payload: '{}' });
        break;
    }
  }
  return out;
}

/** Well-formed requests for things that do not exist: refused (404/409), never created. */
export function unknownIdRequests(): FuzzRequest[] {
  const body = (method: FuzzRequest['method'], url: string, payload?: object): FuzzRequest => ({
    kind: 'unknown-id',
    method,
    url,
    ...(payload ? { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) } : {}),
  });
  return [
    body('GET', '/api/v1/teams/no-such-team'),
    body('GET', '/api/v1/teams/fuzz/approvals/no-such-approval'),
    body('GET', '/api/v1/persona-requests/no-such-request'),
    body('POST', '/api/v1/teams/fuzz/tasks/no-such-task/claim', { owner: 'con' }),
    body('POST', '/api/v1/teams/fuzz/tasks/no-such-task/complete', { owner: 'con' }),
    body('POST', '/api/v1/teams/fuzz/tasks/no-such-task/heartbeat', { owner: 'con' }),
    body('POST', '/api/v1/persona-leases/no-such-lease/release', {}),
    body('POST', '/api/v1/teams/fuzz/approvals/no-such-approval/answer', { decision: 'approve', answeredBy: 'op' }),
    body('DELETE', `/api/v1/tokens/${randomUUID()}`),
    body('PATCH', '/api/v1/personas/no-such-persona', { name: 'Nobody' }),
  ];
}
