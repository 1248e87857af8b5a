export { bootstrapService, createServiceApp, type BootstrapOptions } from './bootstrap';
export { PlatformModule, type PlatformModuleOptions } from './platform.module';
export {
  APP_CONFIG,
  MIGRATIONS_DIRS,
  NATS_CONNECTION,
  PG_POOL,
  SERVICE_NAME,
  SERVICE_SCHEMA,
  serviceSchemaName,
} from './platform.tokens';
export {
  baseConfigSchema,
  natsServers,
  portSchema,
  LOG_LEVELS,
  type BaseConfig,
} from './config/base-config.schema';
export { ConfigError, type ConfigProblem } from './config/config-error';
export { loadConfig } from './config/load-config';
export { createPgPool, headspacePgTypes, type PgPoolOptions } from './database/pg-pool';
export {
  MIGRATOR,
  databaseRoleOf,
  databaseUrlFor,
  databaseUserOf,
  databasePasswordOf,
  dbRolesEnabled,
  serviceProcessEnv,
  withServiceDatabaseUrl,
} from './database/service-database-url';
export { connectNats, natsAuthOptions, type NatsAuthSettings, type NatsConnection, type NatsConnectionOptions } from './messaging/nats-connection';
export { redactSecrets, redactDeep, REDACT_PATHS } from './logging/redaction';
export { pinoOptions, type LoggerSettings } from './logging/logger-options';
export { ShutdownState } from './lifecycle/shutdown-state';
export { MetricsServer, metricsPortOf } from './metrics/metrics-server';
export { EventRelayService } from './event-sourcing/event-relay.service';
export { FenceMonitor, oldestTransaction, type FenceHolder } from './event-sourcing/fence-monitor.service';
export { EventProcessor, type ProcessorDeclaration } from './event-sourcing/event-processor';
export { Projection, type ProjectionDeclaration } from './event-sourcing/projection';
export { Sweeper, type SweeperOptions } from './sweeping/sweeper';
export { openReadOrm, ReadModel, READ_ORM } from './read-model/read-model';
export { ReadModelModule } from './read-model/read-model.module';
export { ErrorReporter, type ErrorReporterOptions, type ReportSink, type ReportOutcome } from './error-reporting/error-reporter';
export { isUnexpectedError, reportOfError, topFrameOf, type Capture } from './error-reporting/error-report';
export { reportProcessCrashes } from './error-reporting/process-crash-reporting';
export { headspaceRelease } from './error-reporting/release';
export * from './secrets/secret-box';
