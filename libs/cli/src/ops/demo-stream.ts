import { exitCodeForStatus, type ApiClient, type Problem } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import { SseParser } from '../sse-reader';

/** One event of `GET /api/v1/stream` as the gateway sends it. */
export interface StreamPayload {
  eventId: string;
  type: string;
  time: string;
  team?: string;
  summary: string;
  data: Record<string, unknown>;
}

/**
 * Collects the live stream from the moment it opens, reconnecting with Last-Event-ID when the
 * connection drops (nothing missed, nothing twice), so the demo can read events in the order they
 * came, whenever it gets to them.
 */
export class DemoStream {
  private readonly queue: StreamPayload[] = [];
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  private readonly stop = new AbortController();

  private constructor(
    private readonly api: ApiClient,
    private readonly query: Record<string, string>,
  ) {}

  /** Resolves once the first connection is accepted, so what happens afterwards is on it. */
  static async open(api: ApiClient, query: Record<string, string>, signal: AbortSignal): Promise<DemoStream> {
    const stream = new DemoStream(api, query);
    signal.addEventListener('abort', () => stream.close(), { once: true });
    const first = await stream.connect(undefined);
    void stream.pump(first);
    return stream;
  }

  /** The next event, or undefined when `deadline` (epoch ms) passes first. */
  async next(deadline: number): Promise<StreamPayload | undefined> {
    for (;;) {
      const event = this.queue.shift();
      if (event) return event;
      if (this.failure) throw this.failure;
      const wait = deadline - Date.now();
      if (wait <= 0 || this.stop.signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  close(): void {
    this.stop.abort();
    this.wake?.();
  }

  private async connect(lastEventId: string | undefined): Promise<Response> {
    const query = lastEventId ? { ...this.query, since: undefined } : this.query;
    const res = await fetch(this.api.url('/api/v1/stream', query), {
      headers: this.api.headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }),
      signal: this.stop.signal,
    });
    if (!res.ok || !res.body) {
      const problem = (await res.json().catch(() => ({}))) as Problem;
      throw new CliError(exitCodeForStatus(res.status), `GET /api/v1/stream failed with ${res.status}: ${problem.detail ?? problem.title ?? ''}`);
    }
    return res;
  }

  private async pump(first: Response): Promise<void> {
    let res: Response | undefined = first;
    let lastEventId: string | undefined;
    while (!this.stop.signal.aborted) {
      const parser = new SseParser((message) => {
        try {
          this.queue.push(JSON.parse(message.data) as StreamPayload);
          this.wake?.();
        } catch {
          // not an event (a replay-limit notice): the reconnect below carries on from its id
        }
      });
      try {
        res ??= await this.connect(lastEventId);
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.push(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        if (this.stop.signal.aborted) return;
        if (error instanceof CliError && error.exitCode !== ExitCode.apiServer) {
          this.failure = error;
          this.wake?.();
          return;
        }
      }
      // Heartbeats may carry an id without an event: the parser's last id is where to resume.
      lastEventId = parser.lastEventId ?? lastEventId;
      res = undefined;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
