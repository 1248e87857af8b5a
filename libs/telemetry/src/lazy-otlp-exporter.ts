import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

interface Exporter<T> {
  export(items: T[], resultCallback: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/**
 * An OTLP/HTTP exporter loaded with its transformer on the first export: a service with an endpoint
 * configured pays for it once telemetry flows, and the module graph stays out of every process that
 * starts before then (tests, CLIs).
 */
class LazyExporter<T> implements Exporter<T> {
  private exporter?: Promise<Exporter<T>>;
  private stopped = false;

  constructor(private readonly load: () => Promise<Exporter<T>>) {}

  export(items: T[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) return resultCallback({ code: ExportResultCode.FAILED, error: new Error('exporter shut down') });
    this.loaded().then(
      (exporter) => exporter.export(items, resultCallback),
      (error: Error) => resultCallback({ code: ExportResultCode.FAILED, error }),
    );
  }

  async forceFlush(): Promise<void> {
    if (this.exporter) await (await this.exporter).forceFlush?.();
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.exporter) await (await this.exporter).shutdown();
  }

  private loaded(): Promise<Exporter<T>> {
    this.exporter ??= this.load();
    return this.exporter;
  }
}

/** OTLP/HTTP spans to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT. */
export class LazyOtlpTraceExporter extends LazyExporter<ReadableSpan> implements SpanExporter {
  constructor() {
    super(() => import('@opentelemetry/exporter-trace-otlp-http').then((m) => new m.OTLPTraceExporter()));
  }
}

/** OTLP/HTTP log records to OTEL_EXPORTER_OTLP_(LOGS_)ENDPOINT. */
export class LazyOtlpLogExporter extends LazyExporter<ReadableLogRecord> implements LogRecordExporter {
  constructor() {
    super(() => import('@opentelemetry/exporter-logs-otlp-http').then((m) => new m.OTLPLogExporter()));
  }
}
