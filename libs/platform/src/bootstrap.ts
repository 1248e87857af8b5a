import { type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestMicroservice } from '@nestjs/microservices';
import { JetStreamTransport, WireErrorFilter } from '@headspace/messaging';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import type { z } from 'zod';
import type { BaseConfig } from './config/base-config.schema';
import { ConfigError } from './config/config-error';
import { loadConfig } from './config/load-config';
import { withServiceDatabaseUrl } from './database/service-database-url';
import { ErrorReporter } from './error-reporting/error-reporter';
import { ErrorReportingInterceptor } from './error-reporting/error-reporting.interceptor';
import { reportProcessCrashes } from './error-reporting/process-crash-reporting';
import { ReportingWireErrorFilter } from './error-reporting/reporting-wire-error.filter';
import { pinoOptions } from './logging/logger-options';
import { logRequests } from './logging/request-logging';
import { MetricsServer, metricsPortOf } from './metrics/metrics-server';

export interface BootstrapOptions<S extends z.ZodType<BaseConfig>> {
  /** kebab-case service name, e.g. `team-manager`. */
  service: string;
  configSchema: S;
  /** Builds the root module from the parsed config, e.g. `(config) => AppModule.forRoot(config)`. */
  module: (config: z.output<S>) => DynamicModule | Type;
  env?: NodeJS.ProcessEnv;
}

/**
 * The Nest app on Fastify with the pino logger, not yet listening (tests call init()). A hybrid
 * app: its @MessagePattern/@EventPattern handlers are registered on the JetStreamTransport, which
 * starts serving on application bootstrap (init) and drains on shutdown.
 */
export async function createServiceApp(
  module: DynamicModule | Type,
  options: { bufferLogs?: boolean } = {},
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), {
    bufferLogs: options.bufferLogs ?? true,
    abortOnError: false,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  logRequests(app.getHttpAdapter().getInstance(), {
    info: (line) => logger.log(line, 'Http'),
    error: (line) => logger.error(line, 'Http'),
    infoEnabled: () => PinoLogger.root?.isLevelEnabled('info') ?? true,
  });
  const reporter = errorReporterOf(app);
  if (reporter) app.useGlobalInterceptors(new ErrorReportingInterceptor(reporter));
  connectTransport(app, reporter);
  return app;
}

function errorReporterOf(app: NestFastifyApplication): ErrorReporter | undefined {
  try {
    return app.get(ErrorReporter, { strict: false });
  } catch {
    return undefined; // an app without the PlatformModule
  }
}

function connectTransport(app: NestFastifyApplication, reporter: ErrorReporter | undefined): void {
  let strategy: JetStreamTransport;
  try {
    strategy = app.get(JetStreamTransport, { strict: false });
  } catch {
    return; // an app without the PlatformModule serves nothing over NATS
  }
  // Deferred so the filter is global before the handlers' pipelines are built; the app's own
  // init runs the lifecycle hooks once for both.
  const microservice = app.connectMicroservice({ strategy }, { deferInitialization: true }) as NestMicroservice;
  microservice.useGlobalFilters(reporter ? new ReportingWireErrorFilter(reporter) : new WireErrorFilter());
  microservice.registerListeners();
  microservice.setIsInitialized(true);
  microservice.setIsInitHookCalled(true);
}

/**
 * Loads config (a ConfigError prints its message to stderr and exits 1), starts the app on
 * 0.0.0.0:HTTP_PORT and closes it on SIGTERM/SIGINT, force-exiting if shutdown overruns. An
 * uncaught exception or unhandled rejection is reported to Leon before the process exits 1.
 */
export async function bootstrapService<S extends z.ZodType<BaseConfig>>(
  options: BootstrapOptions<S>,
): Promise<NestFastifyApplication> {
  let config: z.output<S>;
  try {
    // DATABASE_URL_<SERVICE>, or the service's own role with HS_DB_ROLES=true (docs/adr/0015).
    const env = withServiceDatabaseUrl(options.service, options.env ?? process.env);
    config = loadConfig(options.configSchema, env, options.service);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const log = pino(
    pinoOptions({ service: options.service, instance: config.SERVICE_INSTANCE_ID, level: config.LOG_LEVEL }),
  );
  try {
    const app = await createServiceApp(options.module(config));
    const reporter = errorReporterOf(app);
    if (reporter) reportProcessCrashes(reporter, log);
    app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
    armShutdownWatchdog(config.SHUTDOWN_TIMEOUT_MS, log);
    await app.init();
    await app.startAllMicroservices();
    await app.listen(config.HTTP_PORT, '0.0.0.0');
    log.info({ port: config.HTTP_PORT }, `${options.service} listening on http://0.0.0.0:${config.HTTP_PORT}`);
    const metrics = await app.get(MetricsServer, { strict: false }).listen(config.METRICS_HOST, metricsPortOf(config));
    log.info({ metricsPort: metrics.port }, `${options.service} metrics on http://${config.METRICS_HOST}:${metrics.port}/metrics`);
    return app;
  } catch (error) {
    log.fatal({ err: error }, `${options.service} failed to start`);
    process.exit(1);
  }
}

/** Grace on top of SHUTDOWN_TIMEOUT_MS for the last hooks and the log flush. */
const WATCHDOG_GRACE_MS = 2_000;

function armShutdownWatchdog(timeoutMs: number, log: pino.Logger): void {
  const arm = (signal: string) => {
    setTimeout(() => {
      log.error({ signal, timeoutMs }, 'shutdown overran SHUTDOWN_TIMEOUT_MS; exiting');
      process.exit(1);
    }, timeoutMs + WATCHDOG_GRACE_MS).unref();
  };
  process.once('SIGTERM', arm);
  process.once('SIGINT', arm);
}
