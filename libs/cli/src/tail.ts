import pc from 'picocolors';
import { exitCodeForStatus, unreachable, type ApiClient, type Problem } from './api-client';
import { CliError } from './exit-codes';
import type { Io } from './output';
import { SseParser, type SseMessage } from './sse-reader';
import type { StreamEventPayload } from '@headspace/contracts';
import { abortableSleep as sleep } from './abortable-sleep';

export interface TailOptions {
  team?: string;
  types?: string;
  persona?: string;
  run?: string;
  since?: string;
  json?: boolean;
  /** Resume after this SSE id (as a reconnect would). */
  lastEventId?: string;
  signal: AbortSignal;
  /** Max wait between reconnect attempts. */
  maxBackoffMs?: number;
}

/** The fields of the stream's payload (the gateway's contract) that `tail` prints. */
type Payload = Pick<StreamEventPayload, 'eventId' | 'type' | 'time' | 'team' | 'summary'>;

const categoryColour: Record<string, (s: string) => string> = {
  team: pc.magenta,
  teammate: pc.magenta,
  task: pc.cyan,
  tasklist: pc.cyan,
  mailbox: pc.blue,
  approval: pc.yellow,
  persona: pc.green,
  filelock: pc.gray,
  manifest: pc.gray,
  budget: pc.red,
  usage: pc.red,
};

export function formatEvent(p: Payload): string {
  const time = new Date(p.time);
  const hhmmss = Number.isNaN(time.getTime()) ? '--:--:--' : time.toISOString().slice(11, 19);
  const colour = categoryColour[p.type.split('.')[0]] ?? pc.white;
  const type = p.type.endsWith('.decided') || p.type.endsWith('.failed') || p.type.endsWith('.escalated') ? pc.bold(colour(p.type)) : colour(p.type);
  return `${pc.dim(hhmmss)} ${p.team ? pc.bold(p.team.padEnd(12)) : pc.dim('-'.padEnd(12))} ${type.padEnd(28)} ${p.summary}`;
}

/**
 * Follows `GET /api/v1/stream`, printing one line per event. On a dropped connection it reconnects
 * with `Last-Event-ID`, so nothing is missed or shown twice. Ends (resolves) when `signal` aborts;
 * auth and other 4xx answers end it with their exit code instead of retrying.
 */
export async function tail(api: ApiClient, io: Io, options: TailOptions): Promise<void> {
  let lastEventId = options.lastEventId;
  let backoff = 500;
  const maxBackoff = options.maxBackoffMs ?? 10_000;
  let retryHint: number | undefined;
  while (!options.signal.aborted) {
    const query = { team: options.team, types: options.types, persona: options.persona, run: options.run, ...(lastEventId ? {} : { since: options.since }) };
    let res: Response;
    try {
      res = await fetch(api.url('/api/v1/stream', query), {
        headers: api.headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) return;
      io.err.write(`${pc.yellow('!')} ${unreachable(api.endpoint, error).message}; retrying in ${Math.round(backoff / 1000)} s\n`);
      await sleep(backoff, options.signal);
      backoff = Math.min(backoff * 2, maxBackoff);
      continue;
    }
    if (!res.ok || !res.body) {
      const problem = (await res.json().catch(() => ({}))) as Problem;
      if (res.status >= 500) {
        io.err.write(`${pc.yellow('!')} the stream answered ${res.status}; retrying\n`);
        await sleep(backoff, options.signal);
        backoff = Math.min(backoff * 2, maxBackoff);
        continue;
      }
      throw new CliError(exitCodeForStatus(res.status), `GET /api/v1/stream failed with ${res.status}: ${problem.detail ?? problem.title ?? ''}${problem.field ? ` (field: ${problem.field})` : ''}`);
    }
    backoff = 500;
    const parser = new SseParser((message: SseMessage) => {
      if (message.retry !== undefined) retryHint = message.retry;
      if (message.id) lastEventId = message.id;
      let payload: Payload;
      try {
        payload = JSON.parse(message.data) as Payload;
      } catch {
        return;
      }
      io.out.write(options.json ? `${JSON.stringify({ id: message.id, ...payload })}\n` : `${formatEvent(payload)}\n`);
    });
    const decoder = new TextDecoder();
    const resumeId = () => parser.lastEventId ?? lastEventId;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.push(decoder.decode(chunk, { stream: true }));
    } catch (error) {
      if (options.signal.aborted) return;
      void error;
    }
    if (options.signal.aborted) return;
    // Heartbeats may carry an id without an event: the parser's last id is where to resume.
    lastEventId = resumeId();
    io.err.write(`${pc.yellow('!')} stream interrupted; reconnecting${lastEventId ? ' where it left off' : ''}\n`);
    await sleep(retryHint ?? backoff, options.signal);
  }
}
