import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  osDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NoopSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TracerProvider,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { rebindMeter } from './lazy-meter';
import { LazyOtlpTraceExporter } from './lazy-otlp-exporter';
import { propagator } from './propagation';

export interface TelemetryOptions {
  serviceName: string;
  serviceVersion?: string;
  /** Defaults to SERVICE_INSTANCE_ID, else hostname-pid (the platform's default for that variable). */
  serviceInstanceId?: string;
  /** Extra span processors (tests export to memory through one); they count as exporters. */
  spanProcessors?: SpanProcessor[];
  /** Defaults to process.env; read for OTEL_EXPORTER_OTLP_ENDPOINT and HEADSPACE_OTEL_CONSOLE. */
  env?: NodeJS.ProcessEnv;
}

interface RunningTelemetry {
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  contextManager: AsyncLocalStorageContextManager;
  prometheus: PrometheusExporter;
  serviceName: string;
  exporters: string[];
}

let running: RunningTelemetry | undefined;

/**
 * Starts the OpenTelemetry SDK once per process (later calls are no-ops and return the same
 * summary). A tracer provider is always registered so trace ids exist for logs and propagation
 * even when nothing is exported.
 */
export function startTelemetry(options: TelemetryOptions): { exporters: string[] } {
  if (running) return { exporters: running.exporters };
  const env = options.env ?? process.env;
  const { processors, exporters } = spanProcessorsFor(env, options.spanProcessors ?? []);
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  // The providers are wired here rather than through @opentelemetry/sdk-node: its NodeSDK loads
  // every exporter it could build from the environment (gRPC, YAML configuration, logs) at
  // require time, ~15 MB of each idle service for code Headspace never runs.
  const resource = defaultResource()
    // Not the process detector: it would publish the command line, which may carry secrets.
    .merge(detectResources({ detectors: [hostDetector, osDetector, envDetector] }))
    .merge(
      resourceFromAttributes({
        [ATTR_SERVICE_NAME]: options.serviceName,
        ...(options.serviceVersion ? { [ATTR_SERVICE_VERSION]: options.serviceVersion } : {}),
        'service.namespace': 'headspace',
        'service.instance.id':
          options.serviceInstanceId ?? env.SERVICE_INSTANCE_ID ?? `${hostname()}-${process.pid}`,
        'process.pid': process.pid,
      }),
    );
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(propagator);
  const meterProvider = new MeterProvider({ resource, readers: [prometheus] });
  metrics.setGlobalMeterProvider(meterProvider);
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: processors,
    // With nothing exporting, spans still get ids (logs, propagation) but record nothing unless a
    // caller's sampled trace arrives: building attributes and events nobody reads was ~10% of a
    // busy service's CPU on its request and relay paths.
    sampler: new ParentBasedSampler({ root: exporters.length === 0 ? new AlwaysOffSampler() : new AlwaysOnSampler() }),
  });
  trace.setGlobalTracerProvider(tracerProvider);
  rebindMeter();
  running = { tracerProvider, meterProvider, contextManager, prometheus, serviceName: options.serviceName, exporters };
  return { exporters };
}

function spanProcessorsFor(
  env: NodeJS.ProcessEnv,
  extra: SpanProcessor[],
): {
  processors: SpanProcessor[];
  exporters: string[];
} {
  const processors: SpanProcessor[] = [...extra];
  const exporters: string[] = extra.map(() => 'custom');
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    processors.push(new BatchSpanProcessor({ exporter: new LazyOtlpTraceExporter() }));
    exporters.push('otlp');
  }
  if (env.HEADSPACE_OTEL_CONSOLE === '1') {
    processors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
    exporters.push('console');
  }
  if (processors.length === 0) processors.push(new NoopSpanProcessor());
  return { processors, exporters };
}

export function isTelemetryStarted(): boolean {
  return running !== undefined;
}

/** Flushes and stops the SDK, then unregisters the globals so a later start works. */
export async function shutdownTelemetry(): Promise<void> {
  const current = running;
  if (!current) return;
  running = undefined;
  try {
    await Promise.all([current.tracerProvider.shutdown(), current.meterProvider.shutdown()]);
  } finally {
    current.contextManager.disable();
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
    rebindMeter();
  }
}

/** Prometheus text exposition of the current metrics, on raw Node req/res. */
export function metricsRequestHandler(req: IncomingMessage, res: ServerResponse): void {
  if (!running) {
    res.statusCode = 503;
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.end('# telemetry not started\n');
    return;
  }
  running.prometheus.getMetricsRequestHandler(req, res);
}
