import { logs } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { LazyOtlpLogExporter } from './lazy-otlp-exporter';

/** Whether log records go out over OTLP: an OTLP endpoint is set and OTEL_LOGS_EXPORTER is not `none`. */
export function logsExportConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_LOGS_EXPORTER?.trim() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT);
}

/**
 * Registers a LoggerProvider that batches log records to OTLP/HTTP when an endpoint is configured
 * (undefined otherwise). The pino instrumentation feeds it each line pino has already redacted and
 * serialised, and a record takes its trace and span ids from the context it was logged in.
 */
export function startLogExport(env: NodeJS.ProcessEnv, resource: Resource): LoggerProvider | undefined {
  if (!logsExportConfigured(env)) return undefined;
  const provider = new LoggerProvider({
    resource,
    processors: [new BatchLogRecordProcessor({ exporter: new LazyOtlpLogExporter() })],
  });
  logs.setGlobalLoggerProvider(provider);
  return provider;
}
