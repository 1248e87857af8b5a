import { ConfigError } from '../config/config-error';

/**
 * Which PostgreSQL URL a service (or the migrator) connects with (docs/adr/0015):
 * `DATABASE_URL_<NAME>` when given; else, with per-service roles on (`HS_DB_ROLES`), DATABASE_URL's
 * host and database as the role `hs_<name>` with the password `HS_DB_PASSWORD_<NAME>` (none for
 * trust auth); else DATABASE_URL itself. `<NAME>` is the service in upper snake case
 * (TEAM_MANAGER) or MIGRATOR. No Nest here: scripts/migrate.ts and scripts/start.ts use it too.
 */
export const MIGRATOR = 'migrator';

/** `team-manager` → `hs_team_manager`; `migrator` → `hs_migrator`. */
export function databaseRoleOf(name: string): string {
  return `hs_${name.replace(/-/g, '_')}`;
}

function envName(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

/** Whether services connect as their own roles: HS_DB_ROLES, else `fallback`. */
export function dbRolesEnabled(env: NodeJS.ProcessEnv, fallback: boolean): boolean {
  const raw = env.HS_DB_ROLES?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(undefined, [{ variable: 'HS_DB_ROLES', problem: 'must be true or false' }]);
}

function postgresUrl(value: string, variable: string, service: string): URL {
  try {
    const url = new URL(value);
    if ((url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '') return url;
  } catch {
    // reported below, without the value: it may hold a password
  }
  throw new ConfigError(service, [{ variable, problem: 'must be a postgres:// or postgresql:// URL' }]);
}

/**
 * The URL `name` (a service or MIGRATOR) connects with. Throws ConfigError naming the variable
 * that is missing or malformed, never its value.
 */
export function databaseUrlFor(name: string, env: NodeJS.ProcessEnv, roles: boolean): string {
  const own = `DATABASE_URL_${envName(name)}`;
  if (env[own]) return postgresUrl(env[own], own, name).toString();
  if (!env.DATABASE_URL) throw new ConfigError(name, [{ variable: 'DATABASE_URL', problem: 'is required' }]);
  const url = postgresUrl(env.DATABASE_URL, 'DATABASE_URL', name);
  if (!roles) return url.toString();
  url.username = databaseRoleOf(name);
  url.password = env[`HS_DB_PASSWORD_${envName(name)}`] ?? '';
  return url.toString();
}

/** The role a URL logs in as. */
export function databaseUserOf(url: string): string {
  return decodeURIComponent(new URL(url).username);
}

/** The password in a URL, if any. */
export function databasePasswordOf(url: string): string | undefined {
  const password = new URL(url).password;
  return password ? decodeURIComponent(password) : undefined;
}

/**
 * A service's environment with DATABASE_URL replaced by the one it connects with (bootstrap,
 * before the config is parsed). Per-service roles are off unless HS_DB_ROLES=true, so the test
 * suite's services keep connecting with the DATABASE_URL they are given.
 */
export function withServiceDatabaseUrl(service: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!env.DATABASE_URL && !env[`DATABASE_URL_${envName(service)}`]) return env; // loadConfig says it is required
  return { ...env, DATABASE_URL: databaseUrlFor(service, env, dbRolesEnabled(env, false)) };
}

const DATABASE_SECRETS = /^(DATABASE_URL_[A-Z0-9_]+|HS_DB_PASSWORD_[A-Z0-9_]+)$/;

/**
 * The environment a supervisor (scripts/start.ts) gives one service process: DATABASE_URL is that
 * service's own URL, and neither the administrator's URL nor another role's password is passed on.
 * (With roles on, the migration role migrated the schema beforehand: a service's migrate-on-start
 * then finds it up to date and attempts nothing.)
 */
export function serviceProcessEnv(service: string, env: NodeJS.ProcessEnv, roles: boolean): NodeJS.ProcessEnv {
  const url = databaseUrlFor(service, env, roles);
  const kept = Object.fromEntries(Object.entries(env).filter(([key]) => !DATABASE_SECRETS.test(key) && key !== 'HS_DB_ROLES'));
  return { ...kept, DATABASE_URL: url };
}
