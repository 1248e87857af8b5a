import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { pathParams, type ApiRoute } from '../routes/api-route';

export interface FuzzRequest {
  kind: string;
  method: ApiRoute['method'];
  url: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
  /** The answer must be exactly this status (else any 4xx). */
  status?: number;
  /** The problem must name this field (a prefix ending in `*` names a field under it). */
  field?: string;
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
  persona: 'zed',
  pool: 'backend',
  requestId: 'r1',
  leaseId: 'l1',
  holder: 'al',
  id: '00000000-0000-4000-8000-000000000001',
  budgetId: 'team.fuzz',
  project: 'fuzz',
  groupId: 'grp_000000000000000000000000',
  keyId: 'key_0000000000000000',
  loopId: 'l1',
  evalRunId: 'e1',
  workflowId: 'wf1',
  plugin: 'fuzz-plugin',
  learningId: 'l1',
};

/** Values each path parameter's schema refuses (every one also refuses 300 characters). */
const BAD_PARAMS: Record<string, string[]> = {
  team: ['Bad_Team', 'UPPER', '-lead', 'a.b'],
  taskId: ['bad.id', '-x', 'a b'],
  member: ['-x', 'a b', 'a.b'],
  memberId: ['-x', 'a b', '!'],
  personaId: ['UPPER', '9abc', 'a_b'],
  persona: ['UPPER', '9abc', 'a_b'],
  pool: ['UPPER', '9abc'],
  id: ['not-a-uuid', '123'],
  approvalId: ['x'.repeat(101)],
  requestId: ['x'.repeat(101)],
  leaseId: ['x'.repeat(101)],
  holder: ['x'.repeat(201)],
  budgetId: ['x'.repeat(301)],
  project: ['x'.repeat(201)],
  runId: ['UPPER', 'a.b', 'x'.repeat(64)],
  askId: ['UPPER', 'a.b', '-x', 'x'.repeat(64)],
  batchId: ['UPPER', 'a.b', '-x', 'x'.repeat(64)],
  loopId: ['UPPER', 'a.b', '-x', 'x'.repeat(64)],
  evalRunId: ['UPPER', 'a.b', '-x', 'x'.repeat(56)],
  workflowId: ['UPPER', 'a.b', '-x', 'a--b', 'x'.repeat(41)],
  groupId: ['grp_x', 'GRP_000000000000000000000000', 'x'.repeat(30)],
  keyId: ['x'.repeat(101)],
  deliveryId: ['whd_x', 'x'.repeat(65)],
  plugin: ['UPPER', 'a.b', '-x', 'x'.repeat(65)],
  learningId: ['UPPER', 'a.b', '-x', 'x'.repeat(64)],
};

const BAD_JSON = ['{"name": ', '{', '{"a":1,}', '[1,2', 'nul', "{'a':1}", '{"a":"\\x"}'];
const OTHER_TYPES = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'image/png'];
const NON_OBJECTS = ['[1,2]', '42', 'true', '[]', '[{"name":"x"}]'];

type JsonSchema = {
  type?: unknown;
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

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
        out.push({ ...base, headers: { 'content-type': r.pick(OTHER_TYPES) }, payload: 'name=x&<team/>', status: 415 });
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
          // Past every route's bound (lists take 500, the board 1,000).
          limit: ['abc', '0', '-1', '1001', '9'.repeat(400), '1.5'],
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
          includeRevoked: ['perhaps'],
          reason: ['x'.repeat(2_001)],
          state: ['OPEN'],
          severity: ['fatal'],
          sort: ['random'],
          environment: ['x'.repeat(65)],
          release: ['x'.repeat(201)],
          commit: ['HEAD~1', 'ABCDEF1', 'x'.repeat(65)],
          source: ['relative/path', 'http://plain.example/repo.git', 'ext::sh -c x'],
          workspace: ['relative/path', 'http://plain.example/repo.git', 'ext::sh -c x'],
          base: ['UPPER', '-x', 'x'.repeat(56)],
          head: ['UPPER', 'a.b', 'x'.repeat(56)],
          threshold: ['lots', '2', '-0.5'],
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
    // File locks of a team that does not exist: LOCK.UNKNOWN_TEAM, not a lock stream for nobody.
    { ...body('POST', '/api/v1/teams/no-such-team/locks', { path: 'src/a.ts', holder: 'con' }), status: 404, field: 'team' },
    { ...body('POST', '/api/v1/teams/no-such-team/locks/unlock', { path: 'src/a.ts', holder: 'con' }), status: 404, field: 'team' },
    { ...body('POST', '/api/v1/teams/no-such-team/holders/con/locks/release', {}), status: 404, field: 'team' },
  ];
}

const NUL = '\u0000';
/** Byte sequences no UTF-8 decoder may accept: a lone lead byte, a bad continuation, a lone continuation, an overlong form, a surrogate, a truncated sequence. */
const INVALID_UTF8 = [[0xff], [0xc3, 0x28], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]].map((bytes) => Buffer.from(bytes));
/** Nesting far beyond what the gateway parses, and a little beyond what any schema allows. */
const DEEP = 10_000;
const SHALLOW_BUT_TOO_DEEP = 40;
/** Keys of at most four characters: 100,000 of them stay under the 1 MiB body limit. */
const WIDE = 100_000;

const withNul = (r: ReturnType<typeof seeded>, value: string) => {
  const at = r.int(value.length + 1);
  return `${value.slice(0, at)}${NUL}${value.slice(at)}`;
};

/**
 * Every top-level body property of the route's request (its path parameters excluded: they win
 * over the body), and whether the request is a union (whose discriminator fails before any field).
 */
function bodyFields(route: ApiRoute): { fields: Array<[string, JsonSchema]>; union: boolean } {
  const schema = z.toJSONSchema(route.request, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const params = new Set(pathParams(route.path));
  const from = schema.properties ?? (schema.oneOf ?? schema.anyOf)?.[0]?.properties ?? {};
  return { fields: Object.entries(from).filter(([name]) => !params.has(name)), union: !schema.properties };
}

/** A free-form object (a record): any key is kept, so its depth and size are what bound it. */
const isRecord = (s: JsonSchema) => s.type === 'object' && s.additionalProperties !== undefined && s.additionalProperties !== false;

/** A value of the property's own shape holding NUL, and the field the answer must name. */
function nulValue(r: ReturnType<typeof seeded>, name: string, type: unknown): [unknown, string] {
  if (type === 'array') return [[withNul(r, 'item')], `${name}.0`];
  if (type === 'object') return r.next() < 0.5 ? [{ key: withNul(r, 'value') }, `${name}.key`] : [{ [`k${NUL}ey`]: 1 }, `${name}.k\\u0000ey`];
  return [withNul(r, 'fuzz'), name];
}

const nestedArrays = (depth: number) => `${'['.repeat(depth)}0${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
const wideObject = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;
const wideArray = (items: number) => `[${'0,'.repeat(items - 1)}0]`;

/**
 * For every route: NUL in each path parameter, each query parameter (declared or not) and each
 * body field (nested values and keys too); bodies with invalid UTF-8 inside a string; JSON nested
 * 40 and 10,000 levels deep; objects of 100,000 keys and arrays of 100,000 items. Every one must be
 * refused with a 4xx problem (naming the field where there is one), and nothing written.
 */
export function edgeCaseRequests(routes: readonly ApiRoute[], seed = 17): FuzzRequest[] {
  const r = seeded(seed);
  const out: FuzzRequest[] = [];
  const json = { 'content-type': 'application/json' };
  for (const route of routes) {
    const base = { method: route.method, url: urlOf(route) };
    for (const name of pathParams(route.path)) {
      out.push({ kind: 'nul-path', ...base, url: urlOf(route, { [name]: withNul(r, VALID_PARAMS[name] ?? 'fuzz') }), status: 400, field: name });
    }
    for (const name of [...Object.keys(route.query?.shape ?? {}), 'metadata.fuzz', 'unknown']) {
      const url = `${base.url}?${encodeURIComponent(name)}=${encodeURIComponent(withNul(r, 'fuzz'))}`;
      out.push({ kind: 'nul-query', ...base, url, status: 400, field: name });
    }
    if (!route.body) continue;
    const { fields, union } = bodyFields(route);
    for (const [name, schema] of fields) {
      const [value, field] = nulValue(r, name, schema.type);
      out.push({ kind: 'nul-body', ...base, headers: json, payload: JSON.stringify({ [name]: value }), status: 400, field });
    }
    out.push({ kind: 'nul-body', ...base, headers: json, payload: JSON.stringify({ [`na${NUL}me`]: 'x' }), status: 400, field: 'na\\u0000me' });

    const stringField = fields.find(([, s]) => s.type === 'string')?.[0] ?? 'name';
    const bad = r.pick(INVALID_UTF8);
    out.push({ kind: 'invalid-utf8', ...base, headers: json, payload: Buffer.concat([Buffer.from(`{"${stringField}":"fu`), bad, Buffer.from('zz"}')]), status: 400 });
    if (route.body === 'json-or-yaml') {
      const yaml = Buffer.concat([Buffer.from(`team: ${VALID_PARAMS.team}\ndescription: fu`), bad, Buffer.from('zz\n')]);
      out.push({ kind: 'invalid-utf8', ...base, headers: { 'content-type': 'application/yaml' }, payload: yaml, status: 400 });
    }

    out.push({ kind: 'deep-json', ...base, headers: json, payload: nestedArrays(DEEP), status: 400, field: '(root)' });
    const target = fields.length ? r.pick(fields)[0] : 'name';
    out.push({ kind: 'deep-json', ...base, headers: json, payload: `{"${target}":${nestedArrays(DEEP)}}`, status: 400, field: target });
    out.push({ kind: 'deep-json', ...base, headers: json, payload: `{"${target}":${nestedObjects(DEEP)}}`, status: 400, field: target });
    const named = (field: string) => (union ? {} : { field });
    const records = fields.filter(([, s]) => isRecord(s)).map(([name]) => name);
    for (const name of records) {
      out.push({ kind: 'deep-json', ...base, headers: json, payload: `{"${name}":${nestedObjects(SHALLOW_BUT_TOO_DEEP)}}`, ...named(`${name}*`) });
    }
    out.push({ kind: 'wide-json', ...base, headers: json, payload: wideArray(WIDE), status: 400, field: '(root)' });
    // One wide object per route, in a free-form field where there is one (the costliest to check).
    const wideIn = records.length ? r.pick(records) : fields.find(([, s]) => s.type !== 'object')?.[0];
    if (wideIn) out.push({ kind: 'wide-json', ...base, headers: json, payload: `{"${wideIn}":${wideObject(WIDE)}}`, ...named(`${wideIn}*`) });
  }
  return out;
}
