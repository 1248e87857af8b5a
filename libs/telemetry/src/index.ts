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
export { meter, METER_NAME } from './meter';
export { withAgentAttributes, agentAttributes, type GenAiAgentAttributes } from './genai-context';
export { storedSpanIds, withSpanIds } from './run-trace/stored-span-ids';
export { beginStoredSpan, derivedContext, inContext, isSampled, recordStoredSpan, storedContext, storedTraceOf, type StoredSpanRecord, type StoredTrace } from './run-trace/stored-span';
export { CachedGauge, type CachedGaugeOptions, type CachedGaugeSample } from './cached-gauge';
