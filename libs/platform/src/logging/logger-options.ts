import { traceLogFields } from '@headspace/telemetry';
import type { Params } from 'nestjs-pino';
import pino, { type LoggerOptions } from 'pino';
import { REDACT_PATHS, redactDeep, redactSecrets } from './redaction';

export interface LoggerSettings {
  service: string;
  instance: string;
  level: string;
}

/** pino's error serializer with URL passwords masked in message and stack. */
function serializeError(error: Error): Record<string, unknown> {
  const serialized: Record<string, unknown> = { ...pino.stdSerializers.err(error) };
  return redactDeep(serialized);
}

/** Plain pino options, shared by the Nest logger and the pre-Nest bootstrap logger. */
export function pinoOptions(settings: LoggerSettings): LoggerOptions {
  return {
    level: settings.level,
    base: { service: settings.service, instance: settings.instance, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redactDeep(object),
    },
    mixin: () => traceLogFields(),
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    serializers: {
      err: serializeError,
    },
    hooks: {
      logMethod(args, method) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg)) as typeof args,
        );
      },
    },
  };
}

export function nestLoggerParams(settings: LoggerSettings): Params {
  return {
    pinoHttp: {
      ...pinoOptions(settings),
      // request lines come from Fastify's onResponse hook (request-logging.ts), not pino-http's middleware
      autoLogging: false,
      customProps: () => traceLogFields(),
      serializers: {
        err: serializeError,
        req: (req: { url?: string }) => ({ ...req, url: redactSecrets(req.url ?? '') }),
      },
    },
  };
}
