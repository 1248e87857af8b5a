import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/**
 * The ingest edge's own refusals, answered before anything reaches ops-leon (none runs here: a
 * request that got through would be a 503, not the 4xx asserted).
 */
describe('exception ingest refusals at the gateway', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwingestedge', teamManager: false, env: { HS_OPS_INGEST_MAX_BYTES: '65536' } });
  });
  afterAll(async () => h?.close());

  const envelope = (lines: string[]) => Buffer.from(lines.join('\n'));
  const sentryAuth = { 'x-sentry-auth': 'Sentry sentry_key=abcdef0123456789, sentry_version=7' };
  const post = (url: string, headers: Record<string, string>, payload: string | Buffer) => h.call({ method: 'POST', url, headers, payload });

  function expectProblem(res: Awaited<ReturnType<typeof post>>, status: number, code: string, field?: string) {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status, code, ...(field ? { field } : {}) });
  }

  it('needs no bearer token but an ingest key: none is a 401 naming the header, and a bearer token is not one', async () => {
    const body = JSON.stringify({ type: 'Error', message: 'x' });
    expectProblem(await post('/api/v1/ops/projects/shop/exceptions', { 'content-type': 'application/json' }, body), 401, 'AUTH.UNAUTHENTICATED', 'X-Headspace-Ingest-Key');
    const withToken = await h.call({ method: 'POST', url: '/api/v1/ops/projects/shop/exceptions', headers: { 'content-type': 'application/json' }, payload: body }, h.adminToken);
    expectProblem(withToken, 401, 'AUTH.UNAUTHENTICATED', 'X-Headspace-Ingest-Key');
    expectProblem(await post('/api/1/envelope/', {}, envelope(['{}', '{"type":"event"}', '{}'])), 401, 'AUTH.UNAUTHENTICATED', 'X-Sentry-Auth');
    expectProblem(await post('/api/1/store/?sentry_key=bad%20key', {}, '{}'), 401, 'AUTH.UNAUTHENTICATED', 'sentry_key');
  });

  it('refuses a bad project in the path naming it', async () => {
    expectProblem(await post('/api/v1/ops/projects/Bad_Name/exceptions', { 'x-headspace-ingest-key': 'k1' }, '{}'), 400, 'CONTRACTS.VALIDATION_FAILED', 'project');
    expectProblem(await post('/api/shop/envelope/', sentryAuth, envelope(['{}'])), 400, 'CONTRACTS.VALIDATION_FAILED', 'projectId');
  });

  it('answers 415 for a content type it does not read, naming Content-Type', async () => {
    expectProblem(await post('/api/1/envelope/', { ...sentryAuth, 'content-type': 'image/png' }, 'x'), 415, 'GATEWAY.UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
    expectProblem(await post('/api/v1/ops/projects/shop/exceptions', { 'x-headspace-ingest-key': 'k1', 'content-type': 'application/xml' }, '<e/>'), 415, 'GATEWAY.UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
  });

  it('answers 400 for invalid gzip, 415 for an unknown encoding, 413 for a zip bomb and for an oversized body', async () => {
    const gz = { ...sentryAuth, 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' };
    expectProblem(await post('/api/1/envelope/', gz, Buffer.from('not gzip at all')), 400, 'GATEWAY.BAD_REQUEST', 'Content-Encoding');
    expectProblem(await post('/api/1/envelope/', { ...gz, 'content-encoding': 'compress' }, 'x'), 415, 'GATEWAY.UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding');
    expectProblem(await post('/api/1/envelope/', gz, gzipSync(Buffer.alloc(10_000_000, 0x20))), 413, 'GATEWAY.PAYLOAD_TOO_LARGE', 'Content-Encoding');
    expectProblem(await post('/api/1/envelope/', sentryAuth, Buffer.alloc(70_000, 0x20)), 413, 'GATEWAY.PAYLOAD_TOO_LARGE');
  });

  it('answers 400 naming the part for malformed envelopes and events', async () => {
    expectProblem(await post('/api/1/envelope/', sentryAuth, 'not json\n{}'), 400, 'CONTRACTS.VALIDATION_FAILED', 'envelope header');
    expectProblem(await post('/api/1/envelope/', sentryAuth, envelope(['{}', '{"type":"event","length":500}', '{}'])), 400, 'CONTRACTS.VALIDATION_FAILED', 'items.0.header.length');
    expectProblem(await post('/api/1/envelope/', sentryAuth, envelope(['{}', '{"type":"session"}', '{}', '{"type":"event"}', '{"broken'])), 400, 'GATEWAY.BAD_JSON', 'items.1.payload');
    expectProblem(await post('/api/1/envelope/', sentryAuth, envelope(['{}', '{"type":"event"}', '[1,2]'])), 400, 'GATEWAY.BAD_REQUEST', 'items.0.payload');
    expectProblem(await post('/api/1/store/', sentryAuth, '"just a string"'), 400, 'GATEWAY.BAD_REQUEST', '(root)');
    expectProblem(await post('/api/v1/ops/projects/shop/exceptions', { 'x-headspace-ingest-key': 'k1', 'content-type': 'application/json' }, '{"type":"E","message":"a\\u0000b"}'), 400, 'CONTRACTS.VALIDATION_FAILED', 'message');
  });

  it('accepts an envelope of only non-event items (sessions, transactions, client reports) and counts them as dropped', async () => {
    const res = await post(
      '/api/1/envelope/?sentry_key=abcdef0123456789',
      {},
      envelope(['{"sent_at":"2025-01-01T00:00:00Z"}', '{"type":"session"}', '{"sid":"1"}', '{"type":"transaction"}', '{}', '{"type":"client_report"}', '{}', '{"type":"session"}', '{"sid":"2"}']),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id: null, accepted: 0, dropped: { session: 2, transaction: 1, client_report: 1 } });
  });

  it('is still limited per client address (the bearer-token limits do not apply)', async () => {
    const limited = await startGatewayHarness({ label: 'gwingestrate', teamManager: false, env: { HS_RATE_LIMIT_ADDRESS_MAX: '3', HS_RATE_LIMIT_MAX: '1' } });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await limited.call({ method: 'POST', url: '/api/1/envelope/?sentry_key=abc', payload: '{}\n{"type":"session"}\n{}' })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const res = await limited.call({ method: 'POST', url: '/api/1/envelope/?sentry_key=abc', payload: '{}' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.headers['x-sentry-rate-limits']).toMatch(/^\d+::/);
    } finally {
      await limited.close();
    }
  });
});
