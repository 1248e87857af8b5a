import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestHarness, type IngestHarness } from './testing/ingest-harness';

/** The three ingest routes end to end: gateway → NATS → ops-leon, read back from its group queries. */
describe('exception ingest routes', () => {
  let h: IngestHarness;
  let shop: Awaited<ReturnType<IngestHarness['project']>>;
  beforeAll(async () => {
    h = await startIngestHarness('gwingest');
    shop = await h.project('shop');
  });
  afterAll(async () => h?.close());

  const plain = (body: unknown, key = shop.publicKey) =>
    h.call({ method: 'POST', url: '/api/v1/ops/projects/shop/exceptions', headers: { 'content-type': 'application/json', 'x-headspace-ingest-key': key }, payload: JSON.stringify(body) });

  it('plain JSON with the ingest key: 202 with the group, a retry of the event id counts once', async () => {
    const report = { eventId: 'a'.repeat(32), type: 'KeyError', message: "'user'", stack: 'Traceback (most recent call last):\n  File "/srv/app.py", line 3, in view\nKeyError: \'user\'', level: 'error', environment: 'prod', tags: { a: 'b' } };
    const first = await plain(report);
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json()).toMatchObject({ eventId: 'a'.repeat(32), groupId: expect.stringMatching(/^grp_/), accepted: true });
    const retry = await plain(report);
    expect(retry.json()).toMatchObject({ eventId: 'a'.repeat(32), groupId: first.json().groupId, accepted: false });
    const group = await h.eventually('the group', async () => {
      const g = await h.group(first.json().groupId);
      return g.count === 1 ? g : undefined;
    });
    expect(group.samples[0]).toMatchObject({ type: 'KeyError', source: 'http', environment: 'prod', tags: { a: 'b' } });
  });

  it('refuses a wrong key (401 naming the header) and an unknown project (404), recording nothing', async () => {
    const before = await h.opsEventCount();
    const wrong = await plain({ type: 'E', message: 'm' }, 'nottherightkey');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'OPS.INGEST_KEY_INVALID', field: 'X-Headspace-Ingest-Key' });
    const unknown = await h.call({ method: 'POST', url: '/api/v1/ops/projects/nope/exceptions', headers: { 'x-headspace-ingest-key': shop.publicKey, 'content-type': 'application/json' }, payload: '{"type":"E","message":"m"}' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'OPS.PROJECT_NOT_FOUND' });
    expect(await h.opsEventCount()).toBe(before);
  });

  it('a gzipped envelope with an event, a session and a length-delimited attachment: the event recorded, the rest dropped and counted', async () => {
    const attachment = 'line 1\nline 2\n';
    const event = { event_id: 'b'.repeat(32), level: 'fatal', platform: 'python', exception: { values: [{ type: 'ZeroDivisionError', value: 'division by zero', mechanism: { handled: false }, stacktrace: { frames: [{ filename: 'app.py', abs_path: '/srv/app.py', function: 'ratio', lineno: 9, in_app: true }] } }] } };
    const body = [`{"event_id":"${'b'.repeat(32)}","dsn":"${shop.dsn}"}`, '{"type":"session"}', '{"sid":"s1"}', `{"type":"attachment","length":${attachment.length},"filename":"log.txt"}`, attachment, '{"type":"event"}', JSON.stringify(event)].join('\n');
    // The key only in the envelope header's dsn.
    const res = await h.call({ method: 'POST', url: `/api/${shop.projectId}/envelope/`, headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' }, payload: gzipSync(body) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id: 'b'.repeat(32), accepted: 1, dropped: { session: 1, attachment: 1 } });
    const group = await h.eventually('the group', async () => (await h.groups('shop')).find((g) => g.type === 'ZeroDivisionError'));
    expect(group).toMatchObject({ level: 'fatal', count: 1 });
    const sample = (await h.group(group.groupId)).samples[0];
    expect(sample).toMatchObject({ source: 'sentry-envelope', handled: false, frames: [{ absPath: '/srv/app.py', function: 'ratio', lineno: 9, inApp: true }] });
  });

  it('the legacy store endpoint with X-Sentry-Auth and a gzipped JSON event (what sentry-python 1.x sends)', async () => {
    const event = { event_id: 'c'.repeat(32), level: 'error', message: 'cache miss storm', tags: [['host', 'web-1']], timestamp: '2025-01-02T03:04:05.5' };
    const res = await h.call({
      method: 'POST',
      url: `/api/${shop.projectId}/store/`,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-sentry-auth': `Sentry sentry_key=${shop.publicKey}, sentry_version=7, sentry_client=sentry.python/1.9.10` },
      payload: gzipSync(JSON.stringify(event)),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id: 'c'.repeat(32) });
    const group = await h.eventually('the group', async () => (await h.groups('shop')).find((g) => g.type === 'Message'));
    const sample = (await h.group(group.groupId)).samples[0];
    expect(sample).toMatchObject({ message: 'cache miss storm', source: 'sentry-store', tags: { host: 'web-1' }, timestamp: '2025-01-02T03:04:05.500Z' });
  });

  it('lists the three ingest operations in the OpenAPI document', async () => {
    const doc = (await h.call({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(doc.paths['/api/v1/ops/projects/{project}/exceptions'].post.operationId).toBe('ingestException');
    expect(doc.paths['/api/{projectId}/envelope/'].post.operationId).toBe('sentryEnvelope');
    expect(doc.paths['/api/{projectId}/store/'].post.operationId).toBe('sentryStore');
  });
});

describe("a project's ingest rate limit as Sentry SDKs understand it", () => {
  let h: IngestHarness;
  beforeAll(async () => {
    h = await startIngestHarness('gwingestlimit', { HS_OPS_RATE_LIMIT_PER_MIN: '2' });
  });
  afterAll(async () => h?.close());

  it('answers 429 with Retry-After and X-Sentry-Rate-Limits past the limit, recording nothing more', async () => {
    const shop = await h.project('busy');
    const send = (i: number) =>
      h.call({ method: 'POST', url: `/api/${shop.projectId}/store/?sentry_key=${shop.publicKey}`, payload: JSON.stringify({ event_id: String(i).padStart(32, '0'), message: 'm' }) });
    expect([(await send(1)).statusCode, (await send(2)).statusCode]).toEqual([200, 200]);
    const before = await h.opsEventCount();
    const limited = await send(3);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'OPS.RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-sentry-rate-limits']).toMatch(/^\d+::/);
    expect(await h.opsEventCount()).toBe(before);
  });
});
