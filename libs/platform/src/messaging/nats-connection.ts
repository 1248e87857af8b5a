import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsServers } from '../config/base-config.schema';

export interface NatsConnectionOptions {
  natsUrl: string;
  /** Shown by the server (connz) — service + instance. */
  name: string;
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
  });
}

export type { NatsConnection };
