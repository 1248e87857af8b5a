import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, namespacedStreamName, namespacedSubject } from '@headspace/contracts';
import { decodeEnvelope, formatPositionToken, headerValue, HsHeaders, toCloudEvent } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import { meter } from '@headspace/telemetry';
import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type Consumer,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EventSummariser } from './event-summaries';
import { SseClient, type DropReason } from './sse-client';
import { RecentSet } from './recent-set';
import { cursorKeyOf, encodeCursor, type Cursor } from './sse-cursor';
import { STREAM_CONFIG, type StreamConfig } from './stream.config';
import { actorsOf, teamOf, traceIdOf, type StreamEvent, type StreamEventPayload } from './stream-event';

const droppedCounter = meter.createCounter('headspace.gateway.sse.dropped', { description: 'SSE clients dropped because they could not keep up' });
const connectedGauge = meter.createUpDownCounter('headspace.gateway.sse.clients', { description: 'Open SSE connections' });
const deliveredCounter = meter.createCounter('headspace.gateway.sse.events', { description: 'Events read from JetStream by the SSE hub' });
const repeatCounter = meter.createCounter('headspace.gateway.sse.repeats', { description: 'Messages repeating an event id the SSE hub had already fanned out, dropped' });

/** Where a new client starts in every stream. */
export type StreamStart = { kind: 'new' } | { kind: 'all' } | { kind: 'time'; time: string } | { kind: 'cursor'; cursor: Cursor };

interface Tail {
  name: string;
  key: string;
  /** Last sequence read and fanned out. */
  position: number;
  /** Event ids of the last SSE_REPEAT_WINDOW events fanned out. */
  recent: RecentSet<string>;
  /** Sequences of messages dropped as repeats: a replay through them drops them too. */
  repeats: RecentSet<number>;
  consumer?: Consumer;
  messages?: ConsumerMessages;
  stopped: boolean;
}

export interface HubStats {
  clients: number;
  dropped: number;
  droppedBy: Record<DropReason, number>;
  events: number;
  /** Messages dropped because they repeated an event id already sent (a relay that stored an event twice). */
  repeats: number;
  /** Time spent handing events to clients (the synchronous fan-out), nanoseconds. */
  fanoutNs: bigint;
  streams: string[];
}

const noop = () => undefined;

/** Retry-After (seconds) of a stream refused for want of a slot: a slot frees as soon as a stream closes. */
export const STREAM_SLOT_RETRY_SECONDS = 5;

/**
 * The SSE fan-out: ONE ordered JetStream consumer per event stream of the namespace (every
 * service's `HS_EVT_*`, found at start and re-discovered periodically, so services started later
 * join), each event decoded and summarised once, then offered to every connected client in memory.
 * A client that cannot keep up is dropped; nobody waits for it. Only a resuming client (Last-Event-ID,
 * `since`) gets its own short-lived ordered consumer, which replays up to the live position and ends.
 */
@Injectable()
export class StreamHub implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('StreamHub');
  private js!: JetStreamClient;
  private jsm?: JetStreamManager;
  private readonly tails = new Map<string, Tail>();
  /** Positions of tails that stopped (stream deleted, connection trouble): a restart resumes after them. */
  private readonly lastPositions = new Map<string, number>();
  private readonly clients = new Set<SseClient>();
  /** Open streams per token id (HS_SSE_MAX_STREAMS_PER_TOKEN), on this replica. */
  private readonly streamsPerToken = new Map<string, number>();
  private readonly summariser = new EventSummariser();
  private discovered = false;
  private discovering?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;
  readonly stats: HubStats = { clients: 0, dropped: 0, droppedBy: { 'buffer-overflow': 0, 'resume-overflow': 0, 'replay-failed': 0 }, events: 0, repeats: 0, fanoutNs: 0n, streams: [] };

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(STREAM_CONFIG) readonly config: StreamConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.js = jetstream(this.nc);
    // Without JetStream (yet) the gateway still starts: discovery keeps trying, the stream stays empty.
    await this.discover();
    this.timers.push(
      setInterval(() => void this.discover(), this.config.SSE_DISCOVERY_MS).unref(),
      setInterval(() => this.heartbeat(), this.config.SSE_HEARTBEAT_MS).unref(),
    );
  }

  /** Open SSE connections end before the HTTP server closes, so shutdown never waits on them. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    for (const client of [...this.clients]) client.end();
    this.clients.clear();
    this.stats.clients = 0;
    await Promise.all([...this.tails.values()].map((tail) => this.stopTail(tail)));
  }

  /** Streams the hub tails, by cursor key. */
  streamKeys(): string[] {
    return [...this.tails.keys()];
  }

  /** Looks for event streams it does not tail yet (and restarts tails that stopped). */
  discover(): Promise<void> {
    this.discovering ??= this.runDiscovery().finally(() => (this.discovering = undefined));
    return this.discovering;
  }

  private async runDiscovery(): Promise<void> {
    if (this.stopping || this.nc.isClosed()) return;
    const prefix = namespacedStreamName('HS_EVT_');
    try {
      this.jsm ??= await jetstreamManager(this.nc);
      const names: string[] = [];
      for await (const name of this.jsm.streams.names(namespacedSubject('hs.evt.>'))) if (name.startsWith(prefix)) names.push(name);
      for (const name of names.sort()) {
        const key = cursorKeyOf(name, prefix);
        if (this.tails.has(key) || this.stopping) continue;
        const info = await this.jsm.streams.info(name);
        const last = info.state.last_seq;
        const known = this.lastPositions.get(key);
        // At start "new events only"; a stream appearing later is new altogether; a restarted tail resumes.
        const position = known !== undefined && known <= last ? known : this.discovered ? 0 : last;
        if (known !== undefined && known > last) {
          // The stream was deleted and created anew: its sequences start again at 1.
          for (const client of this.clients) client.cursor.set(key, 0);
        }
        const repeatWindow = this.config.SSE_REPEAT_WINDOW;
        this.startTail({ name, key, position, recent: new RecentSet(repeatWindow), repeats: new RecentSet(repeatWindow), stopped: false });
      }
      this.discovered = true;
      this.stats.streams = [...this.tails.values()].map((t) => t.name);
    } catch (error) {
      if (!this.stopping) this.logger.warn(`event stream discovery failed: ${(error as Error).message}`);
    }
  }

  private startTail(tail: Tail): void {
    this.tails.set(tail.key, tail);
    void this.runTail(tail).then(
      () => this.tailEnded(tail),
      (error: unknown) => {
        if (!tail.stopped && !this.stopping && !isStreamGone(error)) this.logger.warn(`tail of ${tail.name} stopped: ${(error as Error).message}`);
        this.tailEnded(tail);
      },
    );
  }

  private tailEnded(tail: Tail): void {
    this.lastPositions.set(tail.key, tail.position);
    if (this.tails.get(tail.key) === tail) this.tails.delete(tail.key);
    tail.consumer?.delete().catch(noop);
  }

  private async runTail(tail: Tail): Promise<void> {
    tail.consumer = await this.js.consumers.get(tail.name, { opt_start_seq: tail.position + 1 });
    if (tail.stopped) return;
    tail.messages = await tail.consumer.consume({ max_messages: 512 });
    void this.watchTail(tail, tail.messages);
    for await (const msg of tail.messages) {
      if (tail.stopped) break;
      if (msg.seq <= tail.position) continue;
      tail.position = msg.seq;
      const event = this.toStreamEvent(tail.key, msg);
      if (!event) continue;
      // Defence in depth: the relay stores each event once, but a message repeating an event id seen
      // lately (older relays, a stream restored from a backup) never reaches a client twice.
      if (tail.recent.has(event.eventId)) {
        tail.repeats.add(msg.seq);
        this.stats.repeats++;
        repeatCounter.add(1);
        continue;
      }
      tail.recent.add(event.eventId);
      this.stats.events++;
      deliveredCounter.add(1);
      const t0 = process.hrtime.bigint();
      for (const client of this.clients) client.offer(event);
      this.stats.fanoutNs += process.hrtime.bigint() - t0;
    }
  }

  /**
   * An ordered consumer recreates itself after most troubles (server restart, consumer lost), but
   * waits forever when its stream is deleted: then the tail stops, and discovery starts a new one
   * if the stream comes back.
   */
  private async watchTail(tail: Tail, messages: ConsumerMessages): Promise<void> {
    for await (const status of messages.status()) {
      if (tail.stopped || this.stopping) return;
      if (!['consumer_deleted', 'consumer_not_found', 'stream_not_found', 'heartbeats_missed'].includes(status.type)) continue;
      const gone = await (this.jsm ?? (await jetstreamManager(this.nc))).streams.info(tail.name).then(
        () => false,
        (error: unknown) => error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound,
      );
      if (gone) {
        this.logger.warn(`event stream ${tail.name} was deleted; its tail stops until it reappears`);
        tail.stopped = true;
        messages.stop();
        return;
      }
    }
  }

  private async stopTail(tail: Tail): Promise<void> {
    tail.stopped = true;
    tail.messages?.stop();
    await Promise.race([tail.consumer?.delete().catch(noop), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
  }

  /**
   * Takes one of the token's stream slots, or throws a 429 (`GATEWAY.TOO_MANY_STREAMS`) when it
   * holds HS_SSE_MAX_STREAMS_PER_TOKEN already; the returned function gives the slot back (once).
   */
  reserveStream(tokenId: string): () => void {
    const open = this.streamsPerToken.get(tokenId) ?? 0;
    const max = this.config.HS_SSE_MAX_STREAMS_PER_TOKEN;
    if (open >= max) throw new HeadspaceError(ErrorCodes.gatewayTooManyStreams, `This token already has ${open} open event streams (at most ${max}); close one first`);
    this.streamsPerToken.set(tokenId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.streamsPerToken.get(tokenId) ?? 1) - 1;
      if (left > 0) this.streamsPerToken.set(tokenId, left);
      else this.streamsPerToken.delete(tokenId);
    };
  }

  /** Registers a client and brings it to the live position; resolves when every replay is over. */
  async connect(client: SseClient, start: StreamStart): Promise<void> {
    this.clients.add(client);
    this.stats.clients = this.clients.size;
    connectedGauge.add(1);
    client.onClose(() => {
      if (this.clients.delete(client)) {
        this.stats.clients = this.clients.size;
        connectedGauge.add(-1);
      }
    });
    if (start.kind === 'cursor') for (const [key, seq] of start.cursor) client.cursor.set(key, seq);
    const replays: Array<Promise<void>> = [];
    // Synchronous up to here: every live event after the snapshot below reaches the client's pending lists.
    for (const tail of this.tails.values()) {
      const target = tail.position;
      if (start.kind === 'new') {
        client.cursor.set(tail.key, target);
        continue;
      }
      const from = start.kind === 'cursor' ? (client.cursor.get(tail.key) ?? 0) : 0;
      if (start.kind !== 'time' && from >= target) continue;
      client.beginReplay(tail.key);
      replays.push(this.replay(tail, client, target, start.kind === 'time' ? start.time : undefined));
    }
    await Promise.all(replays);
  }

  /** Number of events (0 when none) to skip so a replay starts at the first event at or after `time`. */
  private async seqBefore(stream: string, time: string, target: number): Promise<number> {
    const consumer = await this.js.consumers.get(stream, { opt_start_time: time });
    try {
      const info = await consumer.info(true);
      if (info.num_pending === 0) return target;
      const first = await consumer.next({ expires: 5_000 });
      return first ? first.seq - 1 : target;
    } finally {
      consumer.delete().catch(noop);
    }
  }

  private async replay(tail: Tail, client: SseClient, target: number, since?: string): Promise<void> {
    let consumer: Consumer | undefined;
    try {
      if (since !== undefined) client.cursor.set(tail.key, await this.seqBefore(tail.name, since, target));
      const from = client.cursor.get(tail.key) ?? 0;
      if (from >= target || client.closed) return;
      consumer = await this.js.consumers.get(tail.name, { opt_start_seq: from + 1 });
      const messages = await consumer.consume({ max_messages: 256 });
      client.onClose(() => messages.stop());
      // Repeats the live tail dropped (their first copy may lie before this replay's start), and
      // repeats within this replay of stretches the tail never read.
      const replayed = new RecentSet<string>(this.config.SSE_REPEAT_WINDOW);
      for await (const msg of messages) {
        const event = this.toStreamEvent(tail.key, msg);
        // The replay budget counts messages read, shown or not: filtered-out events cost the same read.
        if (!client.takeReplayBudget()) {
          this.endAtReplayLimit(client);
          break;
        }
        if (event && !tail.repeats.has(msg.seq) && !replayed.has(event.eventId)) {
          replayed.add(event.eventId);
          client.apply(event);
        } else client.cursor.set(tail.key, msg.seq);
        if (client.closed || msg.seq >= target || msg.info.pending === 0) break;
        await client.settle();
      }
      messages.stop();
    } catch (error) {
      if (!client.closed && !this.stopping) {
        this.logger.warn(`replay of ${tail.name} for client ${client.id} failed: ${(error as Error).message}`);
        client.drop('replay-failed');
      }
    } finally {
      consumer?.delete().catch(noop);
      client.endReplay(tail.key);
    }
  }

  /**
   * HS_SSE_MAX_REPLAY reached: the client gets the id of the position it reached in every stream
   * (replays stopped there, live events held meanwhile are not sent: they would jump the gap) and
   * the stream ends; reconnecting with that Last-Event-ID replays the next part.
   */
  private endAtReplayLimit(client: SseClient): void {
    if (client.closed) return;
    const data = JSON.stringify({ max: this.config.HS_SSE_MAX_REPLAY, next: 'reconnect with this Last-Event-ID to continue' });
    client.write(`id: ${encodeCursor(client.cursor)}\nevent: replay-limit\ndata: ${data}\n\n`);
    client.finish();
  }

  /** A new client; it is not connected until `connect`. */
  createClient(res: import('node:http').ServerResponse, options: Omit<ConstructorParameters<typeof SseClient>[1], 'onDrop' | 'maxBufferedBytes' | 'maxPending' | 'maxReplay'>): SseClient {
    return new SseClient(res, {
      ...options,
      maxBufferedBytes: this.config.SSE_CLIENT_BUFFER_BYTES,
      maxPending: this.config.SSE_RESUME_PENDING_MAX,
      maxReplay: this.config.HS_SSE_MAX_REPLAY,
      onDrop: (client, reason) => {
        this.stats.dropped++;
        this.stats.droppedBy[reason]++;
        droppedCounter.add(1, { reason });
        this.logger.warn(`SSE client ${client.id} (${client.principal.name}) dropped: ${reason}`);
      },
    });
  }

  private heartbeat(): void {
    for (const client of this.clients) client.heartbeat();
  }

  /** Decodes and summarises one message; undefined for a body that is not an event envelope. */
  private toStreamEvent(streamKey: string, msg: JsMsg): StreamEvent | undefined {
    let envelope: ReturnType<typeof decodeEnvelope>;
    try {
      envelope = decodeEnvelope(msg.data);
    } catch {
      return undefined;
    }
    const data = (envelope.data && typeof envelope.data === 'object' ? envelope.data : {}) as Record<string, unknown>;
    const type = envelope.type.replace(/[\r\n]/g, ' ');
    // Run and session events name their team in the envelope's metadata (their payloads do not all carry it).
    const team = teamOf(type, envelope.streamId, data) ?? (typeof envelope.metadata.team === 'string' ? envelope.metadata.team : undefined);
    const traceparent = headerValue(msg.headers, HsHeaders.traceparent) ?? envelope.metadata.traceparent;
    const traceId = traceIdOf(traceparent);
    const runId = typeof data.runId === 'string' ? data.runId : typeof envelope.metadata.runId === 'string' ? envelope.metadata.runId : undefined;
    const payload: StreamEventPayload = {
      eventId: envelope.eventId,
      type,
      time: envelope.recordedAt.toISOString(),
      ...(team !== undefined ? { team } : {}),
      ...(traceId !== undefined ? { traceId } : {}),
      streamId: envelope.streamId,
      summary: this.summariser.summarise(type, data),
      ...(envelope.transactionId !== undefined
        ? { position: formatPositionToken(serviceOf(streamKey), { transactionId: envelope.transactionId, globalPosition: envelope.globalPosition }) }
        : {}),
      // Every event's payload is an object (defineEvent takes z.object schemas).
      data,
    };
    let cloudFrame: string | undefined;
    return {
      streamKey,
      seq: msg.seq,
      eventId: envelope.eventId,
      type,
      team,
      runId,
      actors: actorsOf(type, data),
      frame: `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`,
      cloudFrame: () => (cloudFrame ??= `data: ${JSON.stringify(cloudEventOf(streamKey, envelope, type, traceparent))}\n\n`),
    };
  }
}

/** The CloudEvent of a decoded envelope; the owning service is the stream's cursor key (`team_manager` → `team-manager`). */
function cloudEventOf(streamKey: string, envelope: ReturnType<typeof decodeEnvelope>, type: string, traceparent: string | undefined) {
  return toCloudEvent(
    {
      ...envelope,
      type,
      streamVersion: envelope.streamVersion.toString(),
      globalPosition: envelope.globalPosition.toString(),
      recordedAt: envelope.recordedAt.toISOString(),
      metadata: traceparent === undefined ? envelope.metadata : { ...envelope.metadata, traceparent },
    },
    serviceOf(streamKey),
  );
}

/** The service owning a stream: its cursor key (`team_manager` → `team-manager`). */
const serviceOf = (streamKey: string) => streamKey.replace(/_/g, '-');

function isStreamGone(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamNotFound || error.code === JetStreamApiCodes.ConsumerNotFound);
}
