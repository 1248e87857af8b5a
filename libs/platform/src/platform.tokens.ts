/** The parsed config object of the service (its zod schema's output). */
export const APP_CONFIG = Symbol.for('headspace.APP_CONFIG');
/** The service's pg.Pool. */
export const PG_POOL = Symbol.for('headspace.PG_POOL');
/** The service's NatsConnection (@nats-io/transport-node). */
export const NATS_CONNECTION = Symbol.for('headspace.NATS_CONNECTION');
/** The service's PostgreSQL schema, e.g. `team_manager`. */
export const SERVICE_SCHEMA = Symbol.for('headspace.SERVICE_SCHEMA');
/** The service name, e.g. `team-manager`. */
export const SERVICE_NAME = Symbol.for('headspace.SERVICE_NAME');

/** `team-manager` → `team_manager`. */
export function serviceSchemaName(service: string): string {
  return service.replace(/-/g, '_');
}
/** Folders of the service's own SQL migrations. */
export const MIGRATIONS_DIRS = Symbol.for('headspace.MIGRATIONS_DIRS');
