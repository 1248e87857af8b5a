import { randomBytes } from 'node:crypto';
import type { EventStore } from '@headspace/event-store';
import { jetstreamManager, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { ConnectionOptions } from '@nats-io/nats-core';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Test-only helpers for the messaging specs (not exported from the library). */
export const natsUrl = (): string => process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A lowercase token unique to this run, for service names, subjects and stream names. */
export const uniqueToken = (label: string): string => `${label}-${randomBytes(4).toString('hex')}`;

/** `options`: credentials (and an inbox prefix) for a locked server. */
export function connectNats(url = natsUrl(), name = 'messaging-spec', options: Partial<ConnectionOptions> = {}): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 100, timeout: 5_000, ...options });
}

export async function deleteStreams(jsm: JetStreamManager, names: string[]): Promise<void> {
  for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
}

/** Every message of a stream, in stream order. */
export async function readAll(nc: NatsConnection, stream: string): Promise<StoredMsg[]> {
  const jsm = await jetstreamManager(nc);
  const { state } = await jsm.streams.info(stream);
  const out: StoredMsg[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq });
    if (msg) out.push(msg);
  }
  return out;
}

export async function streamMessageCount(nc: NatsConnection, stream: string): Promise<number> {
  return (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
}

/** Appends `count` events (`<category>.happened`, data `{ n }`) spread over streams of `perStream` events. */
export async function appendEvents(
  store: EventStore,
  opts: { category: string; count: number; perStream?: number; from?: number; metadata?: Record<string, string> },
): Promise<string[]> {
  const ids: string[] = [];
  const per = opts.perStream ?? 5;
  const from = opts.from ?? 0;
  for (let i = from; i < from + opts.count; i += per) {
    const n = Math.min(per, from + opts.count - i);
    const events = Array.from({ length: n }, (_, k) => ({ type: `${opts.category}.happened`, data: { n: i + k } }));
    const result = await store.append(`${opts.category}-${randomBytes(6).toString('hex')}`, events, {
      expected: 'no-stream',
      metadata: opts.metadata,
    });
    ids.push(...result.eventIds);
  }
  return ids;
}
