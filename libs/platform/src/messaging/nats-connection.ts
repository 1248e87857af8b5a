import { accessSync, constants, readFileSync } from 'node:fs';
import { serviceInboxPrefix } from '@headspace/contracts';
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from '@nats-io/nats-core';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsServers } from '../config/base-config.schema';
import { ConfigError, type ConfigProblem } from '../config/config-error';

/** How a service proves who it is to NATS, and TLS (the NATS_* variables of base-config.schema). */
export interface NatsAuthSettings {
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_NKEY_SEED_FILE?: string;
  NATS_CREDS?: string;
  NATS_TLS_CA?: string;
  NATS_TLS_CERT?: string;
  NATS_TLS_KEY?: string;
}

export interface NatsConnectionOptions {
  natsUrl: string;
  /** Shown by the server (connz) — service + instance. */
  name: string;
  /** The service: its replies arrive under its own inbox prefix, the only one its credentials may read. */
  service?: string;
  /** HS_NAMESPACE, part of the inbox prefix. */
  namespace?: string;
  auth?: NatsAuthSettings;
}

const readable = (file: string) => {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The connect options for the configured credentials: a user and password, an nkey seed file, or a
 * JWT `.creds` file (one of them), and TLS when a CA or a client certificate is given. A bad
 * combination or an unreadable file is a ConfigError naming the variable (never its value).
 * Files are read at each (re)connect, so rotated credentials apply on the next reconnect.
 */
export function natsAuthOptions(auth: NatsAuthSettings = {}, service?: string): Partial<ConnectionOptions> {
  const problems: ConfigProblem[] = [];
  const methods = [auth.NATS_USER && 'NATS_USER', auth.NATS_NKEY_SEED_FILE && 'NATS_NKEY_SEED_FILE', auth.NATS_CREDS && 'NATS_CREDS'].filter(Boolean);
  if (methods.length > 1) problems.push({ variable: methods[1] as string, problem: `cannot be combined with ${methods[0]} (one NATS credential at a time)` });
  if (auth.NATS_USER && !auth.NATS_PASSWORD) problems.push({ variable: 'NATS_PASSWORD', problem: 'is required with NATS_USER' });
  if (auth.NATS_PASSWORD && !auth.NATS_USER) problems.push({ variable: 'NATS_USER', problem: 'is required with NATS_PASSWORD' });
  if (Boolean(auth.NATS_TLS_CERT) !== Boolean(auth.NATS_TLS_KEY)) {
    problems.push({ variable: auth.NATS_TLS_CERT ? 'NATS_TLS_KEY' : 'NATS_TLS_CERT', problem: 'is required with a TLS client certificate (NATS_TLS_CERT and NATS_TLS_KEY)' });
  }
  for (const variable of ['NATS_NKEY_SEED_FILE', 'NATS_CREDS', 'NATS_TLS_CA', 'NATS_TLS_CERT', 'NATS_TLS_KEY'] as const) {
    const file = auth[variable];
    if (file && !readable(file)) problems.push({ variable, problem: 'must name a readable file' });
  }
  if (problems.length) throw new ConfigError(service, problems);

  const options: Partial<ConnectionOptions> = {};
  if (auth.NATS_USER) Object.assign(options, { user: auth.NATS_USER, pass: auth.NATS_PASSWORD });
  const seedFile = auth.NATS_NKEY_SEED_FILE;
  if (seedFile) options.authenticator = nkeyAuthenticator(() => new TextEncoder().encode(readFileSync(seedFile, 'utf8').trim()));
  const credsFile = auth.NATS_CREDS;
  if (credsFile) options.authenticator = credsAuthenticator(() => readFileSync(credsFile));
  if (auth.NATS_TLS_CA || auth.NATS_TLS_CERT) {
    options.tls = {
      ...(auth.NATS_TLS_CA ? { caFile: auth.NATS_TLS_CA } : {}),
      ...(auth.NATS_TLS_CERT ? { certFile: auth.NATS_TLS_CERT, keyFile: auth.NATS_TLS_KEY } : {}),
    };
  }
  return options;
}

export function connectNats(options: NatsConnectionOptions): Promise<NatsConnection> {
  return connect({
    servers: natsServers(options.natsUrl),
    name: options.name,
    maxReconnectAttempts: -1,
    timeout: 10_000,
    // Without this every request builds an Error up front to keep the caller's stack for a later
    // failure, on every request's path. Our messaging errors name the subject and the operation instead.
    noAsyncTraces: true,
    ...(options.service ? { inboxPrefix: serviceInboxPrefix(options.service, options.namespace) } : {}),
    ...natsAuthOptions(options.auth, options.service),
  });
}

export type { NatsConnection };
