import type { FastifyInstance } from 'fastify';
import { traceLogFields } from '@headspace/telemetry';
import { redactSecrets } from './redaction';

/** Where the lines go: the service's Nest logger (nestjs-pino), which adds its context. */
export interface RequestLog {
  info(line: { msg: string }): void;
  error(line: { msg: string }): void;
  /** Whether info lines are written at all: when not, a request's line is not even built. */
  infoEnabled?(): boolean;
}

export const QUIET_ROUTES = /^\/(health\/|metrics)/;

/**
 * One `request completed` line per HTTP request (method, route, status, time, trace ids), from
 * Fastify's own onResponse hook. pino-http's autoLogging runs as Nest middleware, and under
 * NestJS 12's Fastify adapter that middleware never logged a request (stop 33's observability
 * note), so the line is written here instead; health and metrics probes stay quiet.
 */
export function logRequests(fastify: FastifyInstance, log: RequestLog): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    // the path only: query strings carry tokens (`?access_token=` on the stream) and ingest keys
    const path = req.url.split('?', 1)[0]!;
    const status = reply.statusCode;
    if ((status >= 500 || (log.infoEnabled?.() ?? true)) && !QUIET_ROUTES.test(path)) {
      const line = {
        ...traceLogFields(),
        // flat keys: pino-http's req/res serializers expect Node's raw objects
        requestId: req.id,
        method: req.method,
        path: redactSecrets(path),
        ...(req.routeOptions.url ? { route: req.routeOptions.url } : {}),
        statusCode: status,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      };
      if (status >= 500) log.error({ ...line, msg: 'request errored' });
      else log.info({ ...line, msg: 'request completed' });
    }
    done();
  });
}
