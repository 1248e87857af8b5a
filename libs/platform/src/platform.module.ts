import { Global, Logger, Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { setSubjectNamespace } from '@headspace/contracts';
import { JetStreamTransport, setStreamLimits } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Pool } from 'pg';
import { LoggerModule } from 'nestjs-pino';
import type { BaseConfig } from './config/base-config.schema';
import { createPgPool } from './database/pg-pool';
import { ErrorReporter } from './error-reporting/error-reporter';
import { headspaceRelease } from './error-reporting/release';
import { natsReportSink } from './error-reporting/report-sinks';
import { EventRelayService } from './event-sourcing/event-relay.service';
import { AppendWakeupsService } from './event-sourcing/append-wakeups.service';
import { FenceMonitor } from './event-sourcing/fence-monitor.service';
import { ReadPositionGateService } from './event-sourcing/read-position-gate.service';
import { HealthController } from './health/health.controller';
import { PlatformLifecycle } from './lifecycle/platform-lifecycle.service';
import { ShutdownState } from './lifecycle/shutdown-state';
import { nestLoggerParams } from './logging/logger-options';
import { connectNats, natsAuthOptions } from './messaging/nats-connection';
import { MetricsServer } from './metrics/metrics-server';
import {
  APP_CONFIG,
  NATS_CONNECTION,
  PG_POOL,
  MIGRATIONS_DIRS,
  SERVICE_NAME,
  SERVICE_SCHEMA,
  serviceSchemaName,
} from './platform.tokens';

export interface PlatformModuleOptions<C extends BaseConfig = BaseConfig> {
  /** kebab-case service name, e.g. `team-manager`. */
  service: string;
  config: C;
  /** The service's own SQL migrations (projections), applied after the event store's. */
  migrationsDirs?: string[];
  /** Relay the service's events to JetStream (every service that owns streams). */
  publishEvents?: boolean;
}

@Global()
@Module({})
export class PlatformModule {
  static forRoot<C extends BaseConfig>({ service, config, migrationsDirs = [], publishEvents = false }: PlatformModuleOptions<C>): DynamicModule {
    setSubjectNamespace(config.HS_NAMESPACE);
    setStreamLimits({
      maxAgeMs: config.HS_STREAM_MAX_AGE,
      maxBytes: config.HS_STREAM_MAX_BYTES,
      replicas: config.HS_JETSTREAM_REPLICAS,
      storage: config.HS_JETSTREAM_STORAGE,
      placement: { cluster: config.HS_JETSTREAM_PLACEMENT_CLUSTER, tags: config.HS_JETSTREAM_PLACEMENT_TAGS },
    });
    natsAuthOptions(config, service); // a bad NATS credential setting stops the service here, naming the variable
    const instance = `${service}-${config.SERVICE_INSTANCE_ID}`;
    return {
      module: PlatformModule,
      global: true,
      imports: [
        LoggerModule.forRoot(
          nestLoggerParams({ service, instance: config.SERVICE_INSTANCE_ID, level: config.LOG_LEVEL }),
        ),
        TerminusModule.forRoot({ errorLogStyle: 'json' }),
        DiscoveryModule,
      ],
      // /metrics is not among them: MetricsServer serves it on the internal METRICS_PORT.
      controllers: [HealthController],
      providers: [
        { provide: SERVICE_NAME, useValue: service },
        { provide: APP_CONFIG, useValue: config },
        { provide: SERVICE_SCHEMA, useValue: serviceSchemaName(service) },
        { provide: MIGRATIONS_DIRS, useValue: migrationsDirs },
        {
          provide: PG_POOL,
          useFactory: () => {
            const logger = new Logger('PgPool');
            return createPgPool({
              connectionString: config.DATABASE_URL,
              applicationName: instance,
              max: config.PG_POOL_MAX,
              onError: (error) => logger.warn(`idle client error: ${error.message}`),
            });
          },
        },
        {
          provide: NATS_CONNECTION,
          useFactory: () => connectNats({ natsUrl: config.NATS_URL, name: instance, service, namespace: config.HS_NAMESPACE, auth: config }),
        },
        {
          // Serves the service's @MessagePattern/@EventPattern handlers (bootstrap.ts connects it).
          provide: JetStreamTransport,
          useFactory: (connection: NatsConnection, pool: Pool, schema: string) => new JetStreamTransport({ connection, pool, schema }),
          inject: [NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA],
        },
        {
          // Every service's own unexpected errors go to Leon (ops-leon swaps the sink for its own ingest).
          provide: ErrorReporter,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) =>
            new ErrorReporter({ service, release: headspaceRelease(), environment: config.HS_ENVIRONMENT ?? 'development', enabled: config.HS_REPORT_ERRORS !== false, sink: natsReportSink(nc) }),
        },
        ShutdownState,
        MetricsServer,
        PlatformLifecycle,
        // Reading one's own writes (queries with a min-position) and the held-fence warning.
        ReadPositionGateService,
        FenceMonitor,
        AppendWakeupsService,
        ...(publishEvents ? [EventRelayService] : []),
      ],
      exports: [APP_CONFIG, PG_POOL, NATS_CONNECTION, SERVICE_SCHEMA, SERVICE_NAME, ErrorReporter, ...(publishEvents ? [EventRelayService] : [])],
    };
  }
}
