import type { StreamEventPayload } from '../api/generated';
import { readPositions } from '../api/client';
import { EVENT_TYPES } from '../api/generated/event-types.gen';

/** One `data:` line of the stream, as the gateway's OpenAPI document describes it. */
export type StreamPayload = StreamEventPayload;

/** A received event with the SSE id after it (the resumable cursor). */
export type StreamEvent = StreamPayload & { cursor: string };

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'offline';

type Listener = () => void;

const KEEP = 300;

/**
 * The SSE connection: EventSource resumes by itself after a drop, sending Last-Event-ID; when the
 * browser gives up (an answer other than 200) this reopens it after a pause, naming the last id in
 * the query. Events are kept (the newest KEEP, each once) for the activity feed and the views.
 */
export class EventStream {
  state: ConnectionState = 'connecting';
  lastEventId: string | undefined;
  events: StreamEvent[] = [];
  /** Bumped on every event: views refetch when it changes. */
  version = 0;
  private readonly seen = new Set<string>();
  private readonly listeners = new Set<Listener>();
  private source: EventSource | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private notifying: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /**
   * Where a connection without an id starts: when the page opened (a little earlier, for clock
   * skew). A drop before the first event then replays from there instead of from "now"; the
   * repeats are dropped by event id.
   */
  private readonly since = new Date(Date.now() - 5_000).toISOString();

  /** Not filtered by team: exception groups and the persona registry have none; views filter. */
  constructor(private readonly token: string) {
    this.open();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    clearTimeout(this.notifying);
    this.source?.close();
  }

  private open(): void {
    const params = new URLSearchParams({ access_token: this.token });
    if (this.lastEventId) params.set('lastEventId', this.lastEventId);
    else params.set('since', this.since);
    const source = new EventSource(`/api/v1/stream?${params.toString()}`);
    this.source = source;
    source.onopen = () => this.setState('live');
    source.onerror = () => {
      if (this.closed) return;
      if (source.readyState === EventSource.CLOSED) {
        this.setState('offline');
        this.retry = setTimeout(() => this.open(), 3_000);
      } else this.setState('reconnecting');
    };
    const onEvent = (message: MessageEvent<string>) => this.receive(message);
    source.onmessage = onEvent;
    // Named events (`event: task.claimed`) do not reach onmessage and there is no catch-all.
    for (const type of EVENT_TYPES) source.addEventListener(type, onEvent as EventListener);
  }

  private receive(message: MessageEvent<string>): void {
    if (message.lastEventId) this.lastEventId = message.lastEventId;
    if (!message.data) return;
    const event = JSON.parse(message.data) as StreamPayload;
    if (this.seen.has(event.eventId)) return;
    this.seen.add(event.eventId);
    readPositions.remember(event.position);
    this.events = [{ ...event, cursor: message.lastEventId }, ...this.events].slice(0, KEEP);
    this.version++;
    if (this.state !== 'live') this.state = 'live';
    this.emitSoon();
  }

  /**
   * One notification for the events received together: a replay after a (re)connection arrives as a
   * burst of hundreds, and each notification re-renders what shows the stream.
   */
  private emitSoon(): void {
    if (this.notifying) return;
    this.notifying = setTimeout(() => {
      this.notifying = undefined;
      this.emit();
    }, 0);
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
