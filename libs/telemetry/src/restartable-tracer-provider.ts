import { ProxyTracerProvider, type Tracer, type TracerOptions, type TracerProvider } from '@opentelemetry/api';

const NOTHING: TracerProvider = new ProxyTracerProvider();

/**
 * The process's global tracer provider, registered once. The API's proxy tracers keep the first SDK
 * tracer they resolve, so a provider registered anew after shutdownTelemetry() would leave every
 * tracer taken at import time (Headspace's, the instrumentations') on the stopped one, and a spec
 * that restarts a service in-process would lose its spans. startTelemetry() points this provider at
 * its SDK provider, shutdownTelemetry() at none; tracers follow on their next span.
 */
export class RestartableTracerProvider implements TracerProvider {
  private delegate: TracerProvider = NOTHING;
  private generation = 0;

  use(provider: TracerProvider | undefined): void {
    this.delegate = provider ?? NOTHING;
    this.generation++;
  }

  getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    let tracer: Tracer | undefined;
    let resolvedAt = -1;
    const current = (): Tracer => {
      if (resolvedAt !== this.generation) {
        tracer = this.delegate.getTracer(name, version, options);
        resolvedAt = this.generation;
      }
      return tracer!;
    };
    return {
      startSpan: (spanName, spanOptions, ctx) => current().startSpan(spanName, spanOptions, ctx),
      startActiveSpan: ((...args: unknown[]) => {
        const target = current();
        return Reflect.apply(target.startActiveSpan, target, args);
      }) as Tracer['startActiveSpan'],
    };
  }
}
