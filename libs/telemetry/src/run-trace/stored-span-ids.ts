import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace';

const random = new RandomIdGenerator();
let fixed: { traceId: string; spanId: string } | undefined;

/**
 * The tracer provider's id generator: random ids, except inside `withSpanIds`, where the span being
 * started gets ids chosen earlier (a stored span recorded when it ends, maybe by another process).
 */
export const storedSpanIds: IdGenerator = {
  generateTraceId: () => fixed?.traceId ?? random.generateTraceId(),
  generateSpanId: () => fixed?.spanId ?? random.generateSpanId(),
};

/** Runs a synchronous span start with the given ids (the SDK asks for them inside startSpan). */
export function withSpanIds<T>(ids: { traceId: string; spanId: string }, start: () => T): T {
  fixed = ids;
  try {
    return start();
  } finally {
    fixed = undefined;
  }
}
