import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { RuntimeNodeInstrumentation } from '@opentelemetry/instrumentation-runtime-node';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

/** Probes and scrapes: a trace per readiness check or scrape would bury the traces people read. */
const PROBE_PATHS = /^\/(health\/|metrics(\?|$))/;

/**
 * Query parameters recorded as REDACTED on HTTP spans: the gateway accepts its API token as
 * `access_token` (EventSource cannot send headers), plus the instrumentation's own defaults.
 */
export const REDACTED_QUERY_PARAMS = [
  'access_token',
  'token',
  'api_key',
  'apikey',
  'key',
  'secret',
  'password',
  'signature',
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
];

/**
 * What an outgoing request's span records of its URL: the origin only. Webhook and notification
 * URLs carry their secret in the path (Slack, Discord) or the query, and the model calls' paths
 * say nothing the `chat` span does not.
 */
export function clientUrlAttributes(origin: string, path: string): Record<string, string> {
  const redacted = path === '' || path === '/' ? '/' : '/REDACTED';
  return { 'url.full': `${origin.replace(/\/+$/, '')}${redacted}`, 'url.path': redacted, 'url.query': '' };
}

export interface InstrumentationOptions {
  /** Send pino's log records to the OpenTelemetry logs SDK (only worth it when they are exported). */
  logSending: boolean;
}

/**
 * The instrumentations a service runs with. They patch modules as they are required, so they are
 * created (and enabled) by the preload before any app module loads.
 */
export function serviceInstrumentations(options: InstrumentationOptions): Instrumentation[] {
  const instrumentations: Instrumentation[] = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => PROBE_PATHS.test(req.url ?? ''),
      redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
      redactedQueryParams: REDACTED_QUERY_PARAMS,
    }),
    // Fastify's own instrumentation (the contrib one is deprecated): it names the route
    // (`http.route` on the server span and the HTTP metrics) and spans the handler. Hook spans are
    // off: the auth hook's PostgreSQL lookup still shows as a pg span under the request.
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      instrumentHooks: false,
      ignorePaths: ({ url }) => PROBE_PATHS.test(url),
      // It records the raw URL as `url.path`, query (and so an `access_token`) included.
      requestHook: (span, request) => span.setAttribute('url.path', request.url.split('?', 1)[0]),
    }),
    // Only inside a span: processors and sweepers poll PostgreSQL all the time, and a root trace per
    // idle poll would drown everything else.
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    new UndiciInstrumentation({
      requestHook: (span, request) => span.setAttributes(clientUrlAttributes(String(request.origin), request.path)),
    }),
    new RuntimeNodeInstrumentation(),
  ];
  // The platform logger already adds trace_id/span_id to every line (logger-options.ts).
  if (options.logSending) instrumentations.push(new PinoInstrumentation({ disableLogCorrelation: true }));
  return instrumentations;
}
