/** One dispatched Server-Sent Events message. */
export interface SseMessage {
  /** The `event:` field, `message` when absent. */
  event: string;
  data: string;
  /** The stream's last event id once this message was dispatched (what a reconnect sends). */
  lastEventId: string;
}

/**
 * The WHATWG event-stream parser, fed text chunks as they arrive (any split, even inside a line or
 * between `\r` and `\n`). `lastEventId` moves only when a block ends (blank line), as in EventSource:
 * an `id:` line whose block was cut off by a dropped connection is not taken, so resuming from it
 * never skips the event that block carried. A block with an id and no data (a ping) moves it too.
 */
export class SseParser {
  lastEventId = '';
  /** The last `retry:` the server sent, in milliseconds. */
  retry?: number;
  private buffer = '';
  private started = false;
  private data: string[] = [];
  private event = '';
  private pendingId?: string;

  feed(chunk: string): SseMessage[] {
    this.buffer += chunk;
    if (!this.started && this.buffer.length > 0) {
      this.started = true;
      if (this.buffer.charCodeAt(0) === 0xfeff) this.buffer = this.buffer.slice(1);
    }
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      // A trailing `\r` may be the first half of `\r\n`: wait for the next chunk to know.
      if (c === '\r' && i === this.buffer.length - 1) break;
      const message = this.line(this.buffer.slice(start, i));
      if (message) out.push(message);
      if (c === '\r' && this.buffer[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** Forgets a half-received block (the connection dropped): the next connection starts clean. */
  reset(): void {
    this.buffer = '';
    this.started = false;
    this.data = [];
    this.event = '';
    this.pendingId = undefined;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.pendingId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    if (this.pendingId !== undefined) this.lastEventId = this.pendingId;
    this.pendingId = undefined;
    const { data, event } = this;
    this.data = [];
    this.event = '';
    if (data.length === 0) return undefined;
    return { event: event || 'message', data: data.join('\n'), lastEventId: this.lastEventId };
  }
}
