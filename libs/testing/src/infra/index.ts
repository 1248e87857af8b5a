export { ensureInfra, listLocalServers, stopLocalServers, DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from './ensure-infra';
export type { EnsureInfraOptions, InfraInfo } from './ensure-infra';
export { startNatsServer, natsStatus, findNatsServerBinary, startNatsDaemon, stopNatsDaemon } from './nats';
export type { NatsServerHandle, NatsStatus } from './nats';
export { pgStatus, ensureDatabase, startPgDaemon, stopPgDaemon, findSystemPgBinDir, startPgServer } from './postgres';
export type { PgStatus, PgServerHandle } from './postgres';
export { dockerEngineAvailable, testInfraMode } from './docker';
export type { TestInfraMode } from './docker';
export { freePort, tcpOpen } from './util';
