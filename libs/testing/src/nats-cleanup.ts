import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';

/** Deletes the JetStream streams of a test namespace (their names start with the upper-cased namespace). */
export async function deleteNamespaceStreams(nc: NatsConnection, namespace: string): Promise<number> {
  const prefix = `${namespace.toUpperCase().replace(/-/g, '_')}_`;
  const jsm = await jetstreamManager(nc);
  let deleted = 0;
  for await (const name of jsm.streams.names()) {
    if (!name.startsWith(prefix)) continue;
    await jsm.streams.delete(name).catch(() => undefined);
    deleted++;
  }
  return deleted;
}
