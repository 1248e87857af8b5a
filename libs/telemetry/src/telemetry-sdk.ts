import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, logs, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { LoggerProvider } from '@opentelemetry/sdk-logs';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NoopSpanProcessor,
  SimpleSpanProcessor,
  TracerProvider,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { LazyOtlpTraceExporter } from './lazy-otlp-exporter';
import { startLogExport } from './logs';
import { meterProvider, prometheusReader } from './meter';
import { propagator } from './propagation';
import { serviceResource } from './resource';
import { RestartableTracerProvider } from './restartable-tracer-provider';
import { samplerFromEnv } from './sampler';
import { storedSpanIds } from './run-trace/stored-span-ids';

export interface TelemetryOptions {
  serviceName: string;
  serviceVersion?: string;
  /** Defaults to SERVICE_INSTANCE_ID, else hostname-pid (the platform's default for that variable). */
  serviceInstanceId?: string;
  /** Extra span processors (tests export to memory through one); they count as exporters. */
  spanProcessors?: SpanProcessor[];
  /**
   * Defaults to process.env; read for OTEL_EXPORTER_OTLP_(TRACES_|LOGS_)ENDPOINT,
   * OTEL_TRACES_SAMPLER(_ARG), OTEL_TRACES_EXPORTER / OTEL_LOGS_EXPORTER (`none`) and HEADSPACE_OTEL_CONSOLE.
   */
  env?: NodeJS.ProcessEnv;
}

interface RunningTelemetry {
  tracerProvider: TracerProvider;
  loggerProvider?: LoggerProvider;
  contextManager: AsyncLocalStorageContextManager;
  exporters: string[];
}

let running: RunningTelemetry | undefined;
const globalTracerProvider = new RestartableTracerProvider();
let tracerProviderRegistered = false;

/**
 * Starts the OpenTelemetry SDK once per process (later calls are no-ops and return the same
 * summary); services start it from the preload (preload.ts) before their modules load. A tracer
 * provider is always registered so trace ids exist for logs and propagation even when nothing is
 * exported. Metrics need no start: the meter provider exists from the library's first import.
 */
export function startTelemetry(options: TelemetryOptions): { exporters: string[] } {
  if (running) return { exporters: running.exporters };
  const env = options.env ?? process.env;
  const { processors, exporters } = spanProcessorsFor(env, options.spanProcessors ?? []);
  // The providers are wired here rather than through @opentelemetry/sdk-node: its NodeSDK loads
  // every exporter it could build from the environment (gRPC, YAML configuration) at require
  // time, ~15 MB of each idle service for code Headspace never runs.
  const resource = serviceResource(options, env);
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(propagator);
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: processors,
    // Run, phase and attempt spans are recorded when they end, with ids chosen when they began (run-trace/).
    idGenerator: storedSpanIds,
    sampler: samplerFromEnv(env, exporters.length > 0),
  });
  tracerProviderRegistered ||= trace.setGlobalTracerProvider(globalTracerProvider);
  globalTracerProvider.use(tracerProvider);
  const loggerProvider = startLogExport(env, resource);
  if (loggerProvider) exporters.push('otlp-logs');
  running = { tracerProvider, loggerProvider, contextManager, exporters };
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
  const otlp = env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (otlp && env.OTEL_TRACES_EXPORTER?.trim() !== 'none') {
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

/**
 * Flushes and stops tracing and log export; a later start picks up again. Metrics stay: their
 * provider lives as long as the process (meter.ts).
 */
export async function shutdownTelemetry(): Promise<void> {
  const current = running;
  if (!current) return;
  running = undefined;
  globalTracerProvider.use(undefined);
  try {
    await Promise.all([current.tracerProvider.shutdown(), current.loggerProvider?.shutdown(), meterProvider.forceFlush()]);
  } finally {
    current.contextManager.disable();
    if (current.loggerProvider) logs.disable();
    propagation.disable();
    context.disable();
  }
}

/** Prometheus text exposition of the current metrics, on raw Node req/res (503 until started). */
export function metricsRequestHandler(req: IncomingMessage, res: ServerResponse): void {
  if (!running) {
    res.statusCode = 503;
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.end('# telemetry not started\n');
    return;
  }
  prometheusReader.getMetricsRequestHandler(req, res);
}
