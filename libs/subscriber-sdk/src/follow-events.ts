import { setTimeout as sleep } from 'node:timers/promises';
import type { HeadspaceEvent, HeadspaceEventType } from './headspace-event';
import { SseParser } from './sse-parser';
import { StreamRefusedError } from './subscriber-errors';

export interface FollowEventsOptions {
  /** The gateway's base URL (`https://headspace.example.com`); the stream is `/api/v1/stream` under it. */
  url: string;
  /** A gateway token (viewer role or above); only events of its teams arrive. */
  token: string;
  /** Event types or `category.*` wildcards; all when absent. */
  types?: ReadonlyArray<HeadspaceEventType | `${string}.*`>;
  teams?: readonly string[];
  /** Where to start when there is no `lastEventId`: `new` (default), `all` the stream holds, or a time. */
  since?: 'new' | 'all' | Date | string;
  /** A position saved from a previous `lastEventId`: continue exactly after it. */
  lastEventId?: string;
  /** Stops following (the iterator then ends without an error). */
  signal?: AbortSignal;
  /** Reconnect delays: the first after a drop, doubled per failed attempt up to `maxMs`. Defaults 1 s / 30 s (the server's `retry:` replaces the first). */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** Called after each reconnect attempt fails or a connection drops, with the delay before the next. */
  onReconnect?: (info: { attempt: number; delayMs: number; error?: unknown }) => void;
  fetch?: typeof fetch;
}

/** The iterator `followEvents` returns; `lastEventId` is the position to save for a later resume. */
export interface EventFollower extends AsyncIterableIterator<HeadspaceEvent> {
  readonly lastEventId: string | undefined;
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Follows Headspace events over SSE in CloudEvents form. A dropped connection is reopened with
 * `Last-Event-ID` (after a backoff): the gateway resumes every stream after that position, so the
 * iterator yields each event once, in order per stream, with no gap. Non-retryable refusals (401,
 * 403, 400) end the iterator with a `StreamRefusedError`.
 */
export function followEvents(options: FollowEventsOptions): EventFollower {
  const state = { lastEventId: options.lastEventId };
  const iterator = run(options, state);
  return Object.defineProperty(iterator, 'lastEventId', { get: () => state.lastEventId, enumerable: true }) as unknown as EventFollower;
}

async function* run(options: FollowEventsOptions, state: { lastEventId?: string }): AsyncGenerator<HeadspaceEvent> {
  const doFetch = options.fetch ?? fetch;
  const parser = new SseParser();
  let attempt = 0;
  while (!options.signal?.aborted) {
    const controller = new AbortController();
    const abort = () => controller.abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    let error: unknown;
    let retryAfterMs: number | undefined;
    try {
      const response = await doFetch(streamUrl(options, state.lastEventId), {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${options.token}`,
          ...(state.lastEventId ? { 'last-event-id': state.lastEventId } : {}),
        },
        signal: controller.signal,
      });
      if (response.status !== 200 || !response.body) {
        const body = await readBody(response);
        if (!RETRYABLE.has(response.status)) throw new StreamRefusedError(response.status, body);
        retryAfterMs = retryAfter(response.headers.get('retry-after'));
        error = new StreamRefusedError(response.status, body);
      } else {
        parser.reset();
        const decoder = new TextDecoder();
        for await (const chunk of response.body) {
          for (const message of parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))) {
            state.lastEventId = message.lastEventId || state.lastEventId;
            // `replay-limit` only carries the position reached; the server ends the response and the next connection continues.
            if (message.event !== 'message') continue;
            attempt = 0;
            yield JSON.parse(message.data) as HeadspaceEvent;
          }
          // A data-less block (a ping with an id) moves the position too.
          if (parser.lastEventId) state.lastEventId = parser.lastEventId;
        }
      }
    } catch (caught) {
      if (caught instanceof StreamRefusedError) throw caught;
      error = caught;
    } finally {
      options.signal?.removeEventListener('abort', abort);
      controller.abort();
    }
    if (options.signal?.aborted) return;
    const initial = options.reconnect?.initialMs ?? parser.retry ?? 1_000;
    const delayMs = retryAfterMs ?? Math.min(initial * 2 ** attempt, options.reconnect?.maxMs ?? 30_000);
    attempt++;
    options.onReconnect?.({ attempt, delayMs, error });
    await sleep(delayMs, undefined, { signal: options.signal }).catch(() => undefined);
  }
}

function streamUrl(options: FollowEventsOptions, lastEventId: string | undefined): string {
  const url = new URL('api/v1/stream', options.url.endsWith('/') ? options.url : `${options.url}/`);
  url.searchParams.set('format', 'cloudevents');
  if (options.types?.length) url.searchParams.set('types', options.types.join(','));
  if (options.teams?.length) url.searchParams.set('team', options.teams.join(','));
  if (!lastEventId && options.since !== undefined) url.searchParams.set('since', options.since instanceof Date ? options.since.toISOString() : options.since);
  return url.toString();
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function retryAfter(header: string | null): number | undefined {
  const seconds = header ? Number(header) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : undefined;
}
