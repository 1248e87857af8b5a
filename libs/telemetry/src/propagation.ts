import {
  context,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';

/** Where trace headers are written, e.g. an adapter over NATS or HTTP headers. */
export interface CarrierSetter {
  set(key: string, value: string): void;
}

/** Where trace headers are read from; keys() is optional (only baggage-less W3C needs none). */
export interface CarrierGetter {
  get(key: string): string | undefined;
  keys?(): string[];
}

// Used directly rather than via the global API so propagation works (and is always W3C)
// whether or not the SDK was started.
export const propagator = new CompositePropagator({
  propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
});

const setter: TextMapSetter<CarrierSetter> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<CarrierGetter> = {
  get: (carrier, key) => carrier.get(key),
  keys: (carrier) => carrier.keys?.() ?? [],
};

/** Writes `traceparent` (+ `tracestate`, `baggage`) of ctx into the carrier. */
export function injectContext(carrier: CarrierSetter, ctx: Context = context.active()): void {
  propagator.inject(ctx, carrier, setter);
}

/** Returns base (default: active context) with the remote span context read from the carrier. */
export function extractContext(carrier: CarrierGetter, base: Context = context.active()): Context {
  return propagator.extract(base, carrier, getter);
}

/** Adapter over a plain record, e.g. `injectContext(recordCarrier(headers))`. */
export function recordCarrier(record: Record<string, string>): CarrierSetter & CarrierGetter {
  return {
    get: (key) => record[key],
    set: (key, value) => {
      record[key] = value;
    },
    keys: () => Object.keys(record),
  };
}
