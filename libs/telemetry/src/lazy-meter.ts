import {
  metrics,
  type BatchObservableCallback,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type MetricOptions,
  type Observable,
  type ObservableCallback,
  type UpDownCounter,
} from '@opentelemetry/api';

export const METER_NAME = 'headspace';

/*
 * The metrics API has no proxy provider (unlike tracing): a meter fetched before the SDK starts
 * stays a no-op forever. Instruments are usually module-level constants created at import time,
 * so this meter hands out handles that are re-bound to the real meter whenever the SDK
 * starts or stops.
 */
interface Rebindable {
  bind(meter: Meter): void;
}

const registry: Rebindable[] = [];
let target: Meter = metrics.getMeter(METER_NAME);

/** Re-resolves every handle against the currently registered global MeterProvider. */
export function rebindMeter(): void {
  target = metrics.getMeter(METER_NAME);
  for (const handle of registry) handle.bind(target);
}

class Bound<I> implements Rebindable {
  real: I;
  constructor(private readonly create: (meter: Meter) => I) {
    this.real = create(target);
    registry.push(this);
  }
  bind(meter: Meter): void {
    this.real = this.create(meter);
  }
}

class LazyObservable implements Observable, Rebindable {
  real: Observable;
  private readonly callbacks = new Set<ObservableCallback>();
  constructor(private readonly create: (meter: Meter) => Observable) {
    this.real = create(target);
    registry.push(this);
  }
  bind(meter: Meter): void {
    this.real = this.create(meter);
    for (const callback of this.callbacks) this.real.addCallback(callback);
  }
  addCallback(callback: ObservableCallback): void {
    this.callbacks.add(callback);
    this.real.addCallback(callback);
  }
  removeCallback(callback: ObservableCallback): void {
    this.callbacks.delete(callback);
    this.real.removeCallback(callback);
  }
}

class LazyBatchCallback implements Rebindable {
  private meter: Meter = target;
  constructor(
    readonly callback: BatchObservableCallback,
    readonly observables: LazyObservable[],
  ) {
    this.register();
    registry.push(this);
  }
  private readonly wrapped: BatchObservableCallback = (result) =>
    this.callback({
      observe: (metric, value, attributes) =>
        result.observe(asLazy(metric).real, value, attributes),
    });
  private register(): void {
    this.meter.addBatchObservableCallback(
      this.wrapped,
      this.observables.map((o) => o.real),
    );
  }
  bind(meter: Meter): void {
    this.meter = meter;
    this.register();
  }
  remove(): void {
    this.meter.removeBatchObservableCallback(
      this.wrapped,
      this.observables.map((o) => o.real),
    );
    const index = registry.indexOf(this);
    if (index >= 0) registry.splice(index, 1);
  }
}

function asLazy(observable: Observable): LazyObservable {
  if (!(observable instanceof LazyObservable)) {
    throw new TypeError('batch observables must be created by the headspace meter');
  }
  return observable;
}

const batchCallbacks: LazyBatchCallback[] = [];

export const meter: Meter = {
  createCounter(name: string, options?: MetricOptions): Counter {
    const h = new Bound((m) => m.createCounter(name, options));
    return { add: (value, attributes, ctx) => h.real.add(value, attributes, ctx) };
  },
  createUpDownCounter(name: string, options?: MetricOptions): UpDownCounter {
    const h = new Bound((m) => m.createUpDownCounter(name, options));
    return { add: (value, attributes, ctx) => h.real.add(value, attributes, ctx) };
  },
  createHistogram(name: string, options?: MetricOptions): Histogram {
    const h = new Bound((m) => m.createHistogram(name, options));
    return { record: (value, attributes, ctx) => h.real.record(value, attributes, ctx) };
  },
  createGauge(name: string, options?: MetricOptions): Gauge {
    const h = new Bound((m) => m.createGauge(name, options));
    return { record: (value, attributes, ctx) => h.real.record(value, attributes, ctx) };
  },
  createObservableGauge(name: string, options?: MetricOptions) {
    return new LazyObservable((m) => m.createObservableGauge(name, options));
  },
  createObservableCounter(name: string, options?: MetricOptions) {
    return new LazyObservable((m) => m.createObservableCounter(name, options));
  },
  createObservableUpDownCounter(name: string, options?: MetricOptions) {
    return new LazyObservable((m) => m.createObservableUpDownCounter(name, options));
  },
  addBatchObservableCallback(callback, observables) {
    batchCallbacks.push(
      new LazyBatchCallback(callback as BatchObservableCallback, observables.map(asLazy)),
    );
  },
  removeBatchObservableCallback(callback) {
    const index = batchCallbacks.findIndex((b) => b.callback === callback);
    if (index < 0) return;
    batchCallbacks[index].remove();
    batchCallbacks.splice(index, 1);
  },
};
