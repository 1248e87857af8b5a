import { Controller, Get, Req, Res, UnauthorizedException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../auth/principal';
import { decodeCursor } from './sse-cursor';
import { eventFilter, parseStreamQuery } from './stream-filter';
import { STREAM_SLOT_RETRY_SECONDS, StreamHub, type StreamStart } from './stream-hub';
import { streamPrincipal } from './stream-principal';

/**
 * `GET /api/v1/stream`: the live event feed as Server-Sent Events.
 *
 * Query: `team` (one or a comma list), `run`, `persona`, `types` (comma list, `category.*` wildcards),
 * `since` (`new` — the default —, `all`, or an ISO time; ignored when `Last-Event-ID` is sent), `format`.
 * Every message: `id:` (a resumable cursor), `event:` (the event type), `data:` JSON
 * `{eventId, type, time, team?, traceId?, streamId, summary, data}`; `: ping` comments keep the line alive.
 * With `format=cloudevents` a message is `id:` and `data:` only, the data a CloudEvents 1.0 JSON event.
 * Reconnecting with `Last-Event-ID` (header, or `lastEventId` in the query) resumes with the next
 * event of every stream: no gap, no duplicate. A replay reads at most HS_SSE_MAX_REPLAY messages,
 * then sends `event: replay-limit` (with the id reached) and ends: reconnecting continues it.
 * A token holds at most HS_SSE_MAX_STREAMS_PER_TOKEN open streams per replica (429 beyond).
 */
@Controller('api/v1/stream')
export class StreamController {
  constructor(private readonly hub: StreamHub) {}

  @Get()
  async stream(@Req() request: AuthenticatedRequest, @Res() reply: FastifyReply): Promise<void> {
    const principal = streamPrincipal(request);
    if (!principal) throw new UnauthorizedException('A bearer token (Authorization header or access_token query parameter) is required');
    const { lastEventId: queryLastEventId, ...rest } = (request.query ?? {}) as Record<string, unknown>;
    const query = parseStreamQuery(rest);
    const header = request.headers['last-event-id'];
    const lastEventId = (Array.isArray(header) ? header[0] : header) || (typeof queryLastEventId === 'string' ? queryLastEventId : undefined);
    const start: StreamStart = lastEventId
      ? { kind: 'cursor', cursor: decodeCursor(lastEventId.trim()) }
      : query.since === 'new' || query.since === 'all'
        ? { kind: query.since }
        : { kind: 'time', time: new Date(query.since).toISOString() };

    // One slot of the token's HS_SSE_MAX_STREAMS_PER_TOKEN, held until the connection closes.
    let release: () => void;
    try {
      release = this.hub.reserveStream(principal.tokenId);
    } catch (error) {
      void reply.header('Retry-After', String(STREAM_SLOT_RETRY_SECONDS));
      throw error;
    }
    // Headers hooks already set on the reply (CORS, rate limit, security headers) go out with the stream.
    const hookHeaders = Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, v]) => v !== undefined)) as Record<string, string | string[] | number>;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...hookHeaders,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.socket?.setNoDelay(true);
    const client = this.hub.createClient(res, { principal, filter: eventFilter(query), format: query.format });
    res.on('close', () => {
      client.markClosed();
      release();
    });
    client.onClose(release);
    // Tells EventSource how soon to come back, and lets clients see the stream is open before any event.
    client.write(`retry: 2000\n: connected\n\n`);
    await this.hub.connect(client, start);
  }
}
