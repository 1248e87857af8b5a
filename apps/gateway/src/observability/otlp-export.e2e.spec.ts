import { randomBytes } from 'node:crypto';
import { OtlpReceiver, createTestDatabase, freePort, startServiceProcess, waitFor, type ServiceProcess, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The gateway as a real process, started as every service is (the telemetry preload first), with
 * its OTLP endpoint on a receiver in this test: one authenticated API request yields the HTTP
 * server span with its route, PostgreSQL spans beneath it and the request's log record carrying
 * the same trace id, all over OTLP/HTTP; and the admin token never reaches either.
 */
describe('OTLP export from a service', () => {
  const receiver = new OtlpReceiver();
  const adminToken = `hst_otlp_${randomBytes(24).toString('base64url')}`;
  let db: TestDatabase;
  let gateway: ServiceProcess | undefined;
  let metricsPort: number;

  beforeAll(async () => {
    const endpoint = await receiver.start();
    db = await createTestDatabase('otlpexport');
    metricsPort = await freePort();
    gateway = await startServiceProcess('gateway', {
      DATABASE_URL: db.url,
      HS_NAMESPACE: `otlp-${randomBytes(3).toString('hex')}`,
      HS_ADMIN_TOKEN: adminToken,
      HS_WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      HS_REQUEST_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'info',
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_BLRP_SCHEDULE_DELAY: '100',
    });
  }, 90_000);

  afterAll(async () => {
    await gateway?.kill();
    await db?.drop();
    await receiver.stop();
  });

  it('sends HTTP server spans with their route, pg spans beneath them and log records with the trace and span they were logged in; a token in the query reaches none of them', async () => {
    const res = await fetch(`http://127.0.0.1:${gateway!.port}/api/v1/webhooks`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(res.status, await res.clone().text()).toBe(200);

    const server = await waitFor(
      () =>
        receiver.spans().find((s) => s.attributes['http.route'] === '/api/v1/webhooks' && s.attributes['http.request.method'] === 'GET'),
      { timeoutMs: 30_000, message: 'the HTTP server span of GET /api/v1/webhooks' },
    );
    expect(server.service).toBe('gateway');
    const pg = await waitFor(
      () => {
        const spans = receiver.spans().filter((s) => s.traceId === server.traceId && s.attributes['db.system.name'] === 'postgresql');
        return spans.length > 0 ? spans : undefined;
      },
      { timeoutMs: 30_000, message: 'pg spans in the request trace' },
    );
    expect(pg.every((s) => typeof s.attributes['db.query.text'] === 'string')).toBe(true);

    // No team-manager runs: the gateway answers 503 and logs a warning inside the request's trace.
    const unavailable = await fetch(`http://127.0.0.1:${gateway!.port}/api/v1/teams/known`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(unavailable.status).toBe(503);
    const log = await waitFor(() => receiver.logs().find((l) => l.severityText === 'warn' && l.traceId), {
      timeoutMs: 30_000,
      message: 'the warning of the 503 with a trace id',
    });
    expect(log.service).toBe('gateway');
    const logged = await waitFor(() => receiver.spans().find((s) => s.traceId === log.traceId && s.spanId === log.spanId), {
      timeoutMs: 30_000,
      message: 'the span the warning was logged in',
    });
    expect(receiver.spans().find((s) => s.traceId === logged.traceId && s.attributes['http.route'] === '/api/v1/teams/known')).toBeDefined();
    // The token as a query parameter (how EventSource clients send it) is redacted on the span.
    await fetch(`http://127.0.0.1:${gateway!.port}/api/v1/webhooks?access_token=${adminToken}`);
    await waitFor(() => receiver.spans().find((s) => s.attributes['url.query'] === 'access_token=REDACTED'), {
      timeoutMs: 30_000,
      message: 'the span of the request with a query token',
    });
    expect(receiver.raw()).not.toContain(adminToken);
  });

  it('exposes the HTTP server duration by route and the Node runtime metrics of the instrumentations on /metrics', async () => {
    await fetch(`http://127.0.0.1:${gateway!.port}/api/v1/webhooks`, { headers: { authorization: `Bearer ${adminToken}` } });
    const body = await waitFor(
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        return /^nodejs_eventloop_delay_p99(_seconds)?[{ ]/m.test(text) ? text : undefined;
      },
      { timeoutMs: 30_000, message: 'runtime metrics on /metrics' },
    );
    expect(body).toMatch(/^http_server_request_duration(_seconds)?_count\{[^}]*http_route="\/api\/v1\/webhooks"[^}]*\} [1-9]/m);
    expect(body).toMatch(/^v8js_memory_heap_used(_bytes)?\{/m);
  });
});
