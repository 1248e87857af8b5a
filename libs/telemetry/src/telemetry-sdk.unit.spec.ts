import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { meter } from './meter';
import {
  isTelemetryStarted,
  metricsRequestHandler,
  shutdownTelemetry,
  startTelemetry,
} from './telemetry-sdk';
import { extractContext, injectContext, recordCarrier } from './propagation';
import { currentTraceId, withSpan } from './tracing';

// Created at import time, before the SDK exists, as module-level instruments are in the apps.
const earlyCounter = meter.createCounter('hs_spec_early_total', { description: 'early counter' });
const gauge = meter.createObservableGauge('hs_spec_gauge');
gauge.addCallback((result) => result.observe(42, { kind: 'observed' }));

let server: Server | undefined;

async function scrape(): Promise<{ status: number; body: string }> {
  server ??= createServer(metricsRequestHandler);
  if (!server.listening) await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return { status: res.status, body: await res.text() };
}

describe('telemetry sdk lifecycle', () => {
  afterEach(() => shutdownTelemetry());
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('serves 503 before start, then exposes instruments created at import time', async () => {
    expect(isTelemetryStarted()).toBe(false);
    expect((await scrape()).status).toBe(503);

    startTelemetry({ serviceName: 'telemetry-spec', serviceInstanceId: 'spec-1', env: {} });
    earlyCounter.add(3, { persona: 'con' });
    const { status, body } = await scrape();
    expect(status).toBe(200);
    expect(body).toMatch(/^hs_spec_early_total\{persona="con"(,[^}]*)?\} 3$/m);
    expect(body).toMatch(/^target_info\{.*service_namespace="headspace"/m);
    expect(body).not.toContain('process_command_args');
    expect(body).toMatch(/^hs_spec_gauge\{kind="observed"(,[^}]*)?\} 42$/m);
  });

  it('is idempotent and can be restarted after shutdown, metrics counting on across the restart', async () => {
    expect(startTelemetry({ serviceName: 'a', env: { HEADSPACE_OTEL_CONSOLE: '0' } })).toEqual({
      exporters: [],
    });
    expect(startTelemetry({ serviceName: 'b', env: {} })).toEqual({ exporters: [] });
    await shutdownTelemetry();
    expect(isTelemetryStarted()).toBe(false);
    expect(await withSpan('after.shutdown', {}, () => currentTraceId())).toBeUndefined();

    startTelemetry({ serviceName: 'c', env: {} });
    expect(await withSpan('after.restart', {}, () => currentTraceId())).toMatch(/^[0-9a-f]{32}$/);
    await shutdownTelemetry();

    // Tracers taken before the first start (Headspace's, the instrumentations') follow a restart.
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    startTelemetry({ serviceName: 'd', env: {}, spanProcessors: [processor] });
    await withSpan('after.second.restart', {}, () => undefined);
    await processor.forceFlush();
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['after.second.restart']);
    earlyCounter.add(1, { persona: 'restarted' });
    expect((await scrape()).body).toMatch(/^hs_spec_early_total\{persona="restarted"(,[^}]*)?\} 1$/m);
  });

  it('with nothing exporting, spans carry ids for logs and propagation but record nothing, unless a sampled caller asks', async () => {
    startTelemetry({ serviceName: 'quiet', env: {} });
    const headers: Record<string, string> = {};
    const root = await withSpan('quiet.root', { attributes: { big: 'x'.repeat(100) } }, (span) => {
      injectContext(recordCarrier(headers));
      return { recording: span.isRecording(), traceId: span.spanContext().traceId, logged: currentTraceId() };
    });
    expect(root.recording).toBe(false);
    expect(root.traceId).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
    expect(root.logged).toBe(root.traceId);
    expect(headers.traceparent).toBe(`00-${root.traceId}-${headers.traceparent.split('-')[2]}-00`);
    // A caller that samples (a service that exports) keeps its trace whole through this one.
    const sampled = extractContext(recordCarrier({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }));
    expect(await withSpan('quiet.child', { parent: sampled }, (span) => span.isRecording())).toBe(true);
  });
});
