/**
 * The NATS credentials each service gets under `npm start` (docs/adr/0012):
 * - HS_NATS_AUTH_DIR set (npm start's own locked nats-server): the service's nkey seed file there;
 * - else per-service variables the operator gives for their server, `HS_<SERVICE>_NATS_USER` /
 *   `_PASSWORD` / `_NKEY_SEED_FILE` / `_CREDS` / `_TLS_CERT` / `_TLS_KEY`, become that service's
 *   NATS_USER, NATS_PASSWORD, …;
 * - else nothing: the service connects as NATS_URL and the shared NATS_* variables say.
 * Inherited NATS_* credentials are blanked when a service gets its own (empty means unset), so no
 * service holds another's.
 */
import { join } from 'node:path';

const CREDENTIAL_VARS = ['USER', 'PASSWORD', 'NKEY_SEED_FILE', 'CREDS'] as const;
const PER_SERVICE_VARS = [...CREDENTIAL_VARS, 'TLS_CERT', 'TLS_KEY'] as const;

const prefixOf = (service: string) => `HS_${service.toUpperCase().replace(/-/g, '_')}_NATS_`;
const blankCredentials = () => Object.fromEntries(CREDENTIAL_VARS.map((v) => [`NATS_${v}`, '']));
const PER_SERVICE_VAR = new RegExp(`^HS_[A-Z_]+_NATS_(${PER_SERVICE_VARS.join('|')})$`);

/** Overrides for the service's environment (spread over the inherited one). */
export function serviceNatsEnv(service: string, env: NodeJS.ProcessEnv): Record<string, string> {
  // No service keeps the per-service variables, its own included: it gets them as NATS_*.
  const blanked = Object.fromEntries(Object.keys(env).filter((key) => PER_SERVICE_VAR.test(key)).map((key) => [key, '']));
  if (env.HS_NATS_AUTH_DIR) return { ...blanked, ...blankCredentials(), NATS_NKEY_SEED_FILE: join(env.HS_NATS_AUTH_DIR, `${service}.nk`) };
  const own = Object.fromEntries(PER_SERVICE_VARS.flatMap((v) => (env[`${prefixOf(service)}${v}`] ? [[`NATS_${v}`, env[`${prefixOf(service)}${v}`] as string]] : [])));
  return { ...blanked, ...(Object.keys(own).length ? { ...blankCredentials(), ...own } : {}) };
}

/** One line for the start banner: how the services authenticate to NATS. */
export function describeServiceNats(services: string[], env: NodeJS.ProcessEnv): string {
  if (env.HS_NATS_AUTH_DIR) return `NATS: our own locked server at ${env.NATS_URL}, each service with its own nkey (${env.HS_NATS_AUTH_DIR})`;
  const without = services.filter((s) => !CREDENTIAL_VARS.some((v) => env[`${prefixOf(s)}${v}`]));
  if (without.length === 0) return `NATS: ${env.NATS_URL}, each service with its own credentials`;
  return (
    `NATS: ${env.NATS_URL}; no per-service credentials (HS_<SERVICE>_NATS_*) for ${without.join(', ')}: ` +
    'they connect as NATS_URL/NATS_* say, and the server decides what they may publish (unset NATS_URL to let npm start run a locked server)'
  );
}
