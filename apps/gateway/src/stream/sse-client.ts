import type { ServerResponse } from 'node:http';
import { canSeeTeam, type Principal } from '../auth/principal';
import { encodeCursor, type Cursor } from './sse-cursor';
import type { StreamEvent } from './stream-event';
import type { EventFilter, StreamFormat } from './stream-filter';

export type DropReason = 'buffer-overflow' | 'resume-overflow' | 'replay-failed';

export interface SseClientOptions {
  principal: Principal;
  filter: EventFilter;
  /** What each frame's data is: the Headspace summary form (default) or the CloudEvent. */
  format?: StreamFormat;
  /** Bytes written but not yet taken by the socket before the client is dropped. */
  maxBufferedBytes: number;
  /** Live events held per client while a replay runs, before the client is dropped. */
  maxPending: number;
  /** Messages this connection may read in replays (all streams together) before it is ended. */
  maxReplay: number;
  onDrop(client: SseClient, reason: DropReason): void;
}

let nextId = 1;

/**
 * One SSE connection. Events of each JetStream stream reach it in sequence order, each once: an
 * event at or below the client's cursor for its stream is skipped, so the replay of a resuming
 * client and the live fan-out can overlap without duplicates. While a stream replays, its live
 * events wait in a bounded pending list.
 */
export class SseClient {
  readonly id = nextId++;
  readonly cursor: Cursor = new Map();
  private readonly replaying = new Map<string, StreamEvent[]>();
  private pendingCount = 0;
  private closedFlag = false;
  private readonly closeListeners: Array<() => void> = [];
  delivered = 0;
  /** Messages read in replays so far (HS_SSE_MAX_REPLAY bounds them). */
  replayed = 0;
  private lastId?: string;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SseClientOptions,
  ) {}

  get closed(): boolean {
    return this.closedFlag || this.res.destroyed;
  }

  get principal(): Principal {
    return this.options.principal;
  }

  onClose(listener: () => void): void {
    if (this.closedFlag) listener();
    else this.closeListeners.push(listener);
  }

  /** A live event from the hub. */
  offer(event: StreamEvent): void {
    if (this.closed) return;
    const pending = this.replaying.get(event.streamKey);
    if (pending) {
      pending.push(event);
      if (++this.pendingCount > this.options.maxPending) this.drop('resume-overflow');
      return;
    }
    this.apply(event);
  }

  /** Delivers the event unless already past it; advances the cursor either way. */
  apply(event: StreamEvent): void {
    if (this.closed) return;
    const last = this.cursor.get(event.streamKey) ?? 0;
    if (event.seq <= last) return;
    this.cursor.set(event.streamKey, event.seq);
    if (!canSeeTeam(this.options.principal, event.team) || !this.options.filter.matches(event)) return;
    this.delivered++;
    this.lastId = encodeCursor(this.cursor);
    this.write(`id: ${this.lastId}\n${this.options.format === 'cloudevents' ? event.cloudFrame() : event.frame}`);
  }

  /** Counts one replayed message; false once the connection's replay budget is spent. */
  takeReplayBudget(): boolean {
    if (this.replayed >= this.options.maxReplay) return false;
    this.replayed++;
    return true;
  }

  beginReplay(streamKey: string): void {
    if (!this.replaying.has(streamKey)) this.replaying.set(streamKey, []);
  }

  /** The replay of a stream is over: the live events held meanwhile follow (those replayed already are skipped). */
  endReplay(streamKey: string): void {
    const pending = this.replaying.get(streamKey);
    if (!pending) return;
    this.replaying.delete(streamKey);
    this.pendingCount -= pending.length;
    for (const event of pending) this.apply(event);
  }

  isReplaying(streamKey?: string): boolean {
    return streamKey === undefined ? this.replaying.size > 0 : this.replaying.has(streamKey);
  }

  /** Raw SSE text (comments, retry hints). */
  write(chunk: string): void {
    if (this.closed) return;
    this.res.write(chunk);
    // Node buffers what the socket does not take: that is this client's backlog.
    if (this.res.writableLength > this.options.maxBufferedBytes) this.drop('buffer-overflow');
  }

  /** Bytes written but not yet taken by the socket. */
  get backlog(): number {
    return this.res.writableLength;
  }

  /**
   * Resolves once the backlog is below half the limit (or the client is gone): a replay paces itself
   * by the client's socket instead of overflowing it; live events are never held back this way.
   */
  async settle(): Promise<void> {
    while (!this.closed && this.res.writableLength > this.options.maxBufferedBytes / 2) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.res.off('drain', done);
          this.res.off('close', done);
          resolve();
        };
        this.res.once('drain', done);
        this.res.once('close', done);
      });
    }
  }

  /**
   * `: ping`, preceded by the current cursor when events were skipped since the last id sent (an id
   * without data updates the client's Last-Event-ID without an event): a client whose filter matches
   * rarely then resumes from near its real position instead of re-scanning everything it skipped.
   */
  heartbeat(): void {
    const id = this.replaying.size === 0 ? encodeCursor(this.cursor) : undefined;
    if (id !== undefined && id !== this.lastId && this.cursor.size > 0) {
      this.lastId = id;
      this.write(`id: ${id}\n: ping\n\n`);
    } else {
      this.write(': ping\n\n');
    }
  }

  /** Too slow (or broken): the socket is closed at once, whatever it still had to send. */
  drop(reason: DropReason): void {
    if (this.closedFlag) return;
    this.markClosed();
    this.res.destroy();
    this.options.onDrop(this, reason);
  }

  /** Ends the response (shutdown); a socket that cannot take the end is destroyed. */
  end(): void {
    if (this.closedFlag) return;
    this.markClosed();
    if (this.res.destroyed) return;
    if (this.res.writableLength > 0) {
      this.res.destroy();
      return;
    }
    this.res.end(() => this.res.socket?.destroy());
  }

  /**
   * Ends the response after what was written (a replay cut at its limit): unlike `end`, the backlog
   * is flushed, not dropped; a peer that does not take it within `graceMs` is cut off.
   */
  finish(graceMs = 10_000): void {
    if (this.closedFlag) return;
    this.markClosed();
    if (this.res.destroyed) return;
    const timer = setTimeout(() => this.res.destroy(), graceMs).unref();
    this.res.end(() => {
      clearTimeout(timer);
      this.res.socket?.destroy();
    });
  }

  /** The peer went away. */
  markClosed(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.replaying.clear();
    this.pendingCount = 0;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
