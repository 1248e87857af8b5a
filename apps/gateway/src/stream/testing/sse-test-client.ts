import { request as httpRequest, type IncomingMessage } from 'node:http';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * A minimal SSE reader over node:http for tests: parses `id:`/`event:`/`data:` fields and comments,
 * and lets a test wait for what it expects (no sleeps: every wait is for a message or a condition).
 */
export class SseTestClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  /** The id an EventSource would send as Last-Event-ID (set by any block with an `id:` field). */
  lastEventId?: string;
  response?: IncomingMessage;
  status?: number;
  headers: Record<string, string | string[] | undefined> = {};
  body = '';
  closed = false;
  private buffer = '';
  private waiters: Array<() => void> = [];
  private req?: ReturnType<typeof httpRequest>;

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseTestClient> {
    const client = new SseTestClient();
    await client.connect(url, headers);
    return client;
  }

  private connect(url: string, headers: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.req = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        this.response = res;
        this.status = res.statusCode;
        this.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => this.feed(chunk));
        res.on('close', () => {
          this.closed = true;
          this.notify();
        });
        resolve();
      });
      this.req.on('error', (error) => {
        this.closed = true;
        this.notify();
        reject(error);
      });
      this.req.end();
    });
  }

  private feed(chunk: string): void {
    if (this.status !== 200) {
      this.body += chunk;
      this.notify();
      return;
    }
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields: Record<string, string[]> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        (fields[name] ??= []).push(value);
      }
      if (fields.id) this.lastEventId = fields.id[fields.id.length - 1];
      if (fields.data) {
        const data = fields.data.join('\n');
        this.messages.push({ id: fields.id?.[0], event: fields.event?.[0], data, json: () => JSON.parse(data) });
      }
    }
    this.notify();
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `done()` holds, checked after every chunk; fails after `timeoutMs` saying what was awaited. */
  async until<T>(done: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = done();
      if (value !== undefined && value !== false) return value;
      if (this.closed) throw new Error(`SSE connection closed while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${this.messages.length} messages: ${this.messages.map((m) => m.event).join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the first message (from index `from`) matching `predicate`. */
  next(predicate: (m: SseMessage) => boolean, what: string, from = 0): Promise<SseMessage> {
    return this.until(() => this.messages.slice(from).find(predicate), what);
  }

  eventIds(): string[] {
    return this.messages.map((m) => m.json<{ eventId: string }>().eventId);
  }

  close(): void {
    this.req?.destroy();
    this.response?.destroy();
  }
}
