import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { processServiceName, serviceResource } from './resource';

export const METER_NAME = 'headspace';

/*
 * The metrics API has no proxy provider: a meter fetched before a provider is registered stays a
 * no-op forever, and instruments are module-level constants created at import time. So the
 * process's one MeterProvider is built and registered when this module first loads, which in a
 * service is the preload (before any app module) and in a spec is its first import of the library.
 * It lives as long as the process: shutdownTelemetry() stops tracing and logs only, so a spec that
 * stops and restarts the SDK keeps its counters. Its service name is the process's (processServiceName).
 */
export const prometheusReader = new PrometheusExporter({ preventServerStart: true });

export const meterProvider = new MeterProvider({ resource: serviceResource({ serviceName: processServiceName() }), readers: [prometheusReader] });
metrics.setGlobalMeterProvider(meterProvider);

/** The Headspace meter: create instruments at module level, they report from the first scrape. */
export const meter = meterProvider.getMeter(METER_NAME);
