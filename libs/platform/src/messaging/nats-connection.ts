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
  });
}

export type { NatsConnection };
