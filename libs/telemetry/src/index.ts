export {
  startTelemetry,
  shutdownTelemetry,
  isTelemetryStarted,
  metricsRequestHandler,
  type TelemetryOptions,
} from './telemetry-sdk';
export {
  tracer,
  TRACER_NAME,
  withSpan,
  recordError,
  currentTraceId,
  traceLogFields,
  SpanKind,
  SpanStatusCode,
  type SpanOptions,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from './tracing';
export {
  injectContext,
  extractContext,
  recordCarrier,
  propagator,
  type CarrierGetter,
  type CarrierSetter,
} from './propagation';
export { meter, METER_NAME } from './lazy-meter';
