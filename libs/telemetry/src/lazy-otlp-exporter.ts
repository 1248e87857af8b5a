import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * The OTLP/HTTP trace exporter, loaded with its protobuf transformer on the first export: a service
 * with an endpoint configured pays for it once spans flow, and the module graph stays out of every
 * process that starts before then (tests, CLIs).
 */
export class LazyOtlpTraceExporter implements SpanExporter {
  private exporter?: Promise<SpanExporter>;
  private stopped = false;

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) return resultCallback({ code: ExportResultCode.FAILED, error: new Error('exporter shut down') });
    this.load().then(
      (exporter) => exporter.export(spans, resultCallback),
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

  private load(): Promise<SpanExporter> {
    this.exporter ??= import('@opentelemetry/exporter-trace-otlp-http').then((m) => new m.OTLPTraceExporter());
    return this.exporter;
  }
}
