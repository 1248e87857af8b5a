import { z } from 'zod';

const ms = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/**
 * Settings of the live event stream, read from the environment (the gateway's config schema is
 * another module's; these names are this module's own):
 * - `SSE_HEARTBEAT_MS`: a `: ping` comment goes to every client this often (keeps proxies from
 *   timing the connection out and lets clients notice a dead link). Default 15 s.
 * - `SSE_CLIENT_BUFFER_BYTES`: bytes a client may have written but not yet taken off the socket;
 *   a client beyond it is dropped. Default 1 MiB.
 * - `SSE_RESUME_PENDING_MAX`: live events held for a client while its replay from JetStream runs;
 *   beyond it the client is dropped. Default 10 000.
 * - `SSE_DISCOVERY_MS`: how often new event streams (services started later) are looked for. Default 5 s.
 * - `SSE_REPEAT_WINDOW`: event ids remembered per event stream (and per replay) to drop a message
 *   that repeats one of them: an event the relay stored twice reaches a client once. Default 10 000.
 * - `HS_SSE_MAX_STREAMS_PER_TOKEN`: open streams one token may hold on this gateway replica; one
 *   more is answered 429 with Retry-After until one closes. Default 5.
 * - `HS_SSE_MAX_REPLAY`: messages one connection may replay from JetStream (Last-Event-ID, `since`);
 *   at the limit the stream sends `event: replay-limit` with the id reached and ends, and the
 *   client reconnects with that Last-Event-ID for the next part (EventSource does so by itself).
 *   Default 10 000.
 */
export const streamConfigSchema = z.object({
  SSE_HEARTBEAT_MS: ms(15_000, 10, 3_600_000),
  SSE_CLIENT_BUFFER_BYTES: ms(1_048_576, 1_024, 1_073_741_824),
  SSE_RESUME_PENDING_MAX: ms(10_000, 10, 10_000_000),
  SSE_DISCOVERY_MS: ms(5_000, 50, 3_600_000),
  SSE_REPEAT_WINDOW: ms(10_000, 0, 1_000_000),
  HS_SSE_MAX_STREAMS_PER_TOKEN: ms(5, 1, 10_000),
  HS_SSE_MAX_REPLAY: ms(10_000, 1, 10_000_000),
});

export type StreamConfig = z.output<typeof streamConfigSchema>;

export function streamConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StreamConfig {
  const input = Object.fromEntries(Object.entries(env).filter(([k, v]) => (k.startsWith('SSE_') || k.startsWith('HS_SSE_')) && v !== undefined && v !== ''));
  return streamConfigSchema.parse(input);
}

export const STREAM_CONFIG = Symbol('STREAM_CONFIG');
