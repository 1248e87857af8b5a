import { randomUUID } from 'node:crypto';
import { parseOrThrow, refuseNulCharacters, ValidationError, type RequestDefinition } from '@headspace/contracts';
import { recordingPositions, type PositionRecorder } from '@headspace/event-store';
import { currentTraceId, extractContext, injectContext, recordCarrier, withSpan, SpanKind } from '@headspace/telemetry';
import type { Msg, MsgHdrs, NatsConnection } from '@nats-io/nats-core';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { z } from 'zod';
import { headersToRecord, headerValue, HsHeaders, natsHeaders, optionalHeaderCarrier } from '../headers/hs-headers';
import { formatPositionToken, parsePositionTokens } from '../headers/position-token';
import { readModelTimeout, readPositionGate } from './read-position-gate';
import { decodeJson, encodeJson, toWireError, type ReplyEnvelope } from './reply-envelope';
import { respondSoon } from './reply-batcher';
import type { RequestContext } from './request-context';

export type RequestHandler<D extends RequestDefinition> = (
  request: z.output<D['request']>,
  ctx: RequestContext,
) => Promise<z.input<D['response']>> | z.input<D['response']>;

export interface ServeOptions {
  /** Queue group; replicas of a service share the requests. Default: the definition's service. */
  queue?: string;
  /** Called with every error that was not a HeadspaceError (they are answered as INTERNAL.UNEXPECTED). */
  onError?(error: unknown, ctx: RequestContext): void;
}

export interface RequestServer {
  readonly subject: string;
  /** Stops taking requests and waits for the ones being handled to be answered. */
  stop(): Promise<void>;
}

/**
 * Answers a command or query on its subject (core NATS request/reply, queue group per service).
 * JetStreamTransport's own machinery, not exported from the library: a service serves a subject
 * only through `@MessagePattern`, so it is drained with the app.
 * The request is parsed with the contract's zod schema: a bad one (or one holding a NUL character)
 * is answered with a ValidationError naming the field and the handler never runs. Replies are
 * `{ ok: true, result }` or `{ ok: false, error: WireError }`.
 *
 * Reading one's own writes: a command's successful reply carries, in an Hs-Position header, the log
 * position its events reached (what the EventStore recorded while the handler ran). A query with an
 * Hs-Min-Position header is answered only once the service's read models have passed it, waiting at
 * most the service's bound (and the caller's Hs-Max-Wait-Ms); past that it is READ_MODEL.TIMEOUT.
 */
export function serveRequests<D extends RequestDefinition>(
  nc: NatsConnection,
  definition: D,
  handler: RequestHandler<D>,
  options: ServeOptions = {},
): RequestServer {
  const inflight = new Set<Promise<void>>();
  const what = `${definition.service} ${definition.kind} ${definition.name}`;

  const answer = async (msg: Msg): Promise<void> => {
    const commandId = headerValue(msg.headers, HsHeaders.commandId) ?? (definition.kind === 'command' ? randomUUID() : undefined);
    const ctx: RequestContext = {
      subject: msg.subject,
      kind: definition.kind,
      commandId,
      correlationId: headerValue(msg.headers, HsHeaders.correlationId) ?? commandId ?? randomUUID(),
      causationId: headerValue(msg.headers, HsHeaders.causationId),
      headers: headersToRecord(msg.headers),
    };
    let reply: ReplyEnvelope;
    const recorder: PositionRecorder = {};
    await withSpan(
      `process ${msg.subject}`,
      {
        kind: SpanKind.SERVER,
        parent: extractContext(optionalHeaderCarrier(msg.headers), ROOT_CONTEXT),
        attributes: {
          'rpc.system': 'nats',
          'messaging.system': 'nats',
          'messaging.destination.name': msg.subject,
          ...(commandId ? { 'headspace.command_id': commandId } : {}),
          'headspace.correlation_id': ctx.correlationId,
        },
      },
      async (span) => {
        const trace: Record<string, string> = {};
        injectContext(recordCarrier(trace));
        ctx.traceparent = trace.traceparent;
        ctx.tracestate = trace.tracestate;
        try {
          let body: unknown;
          try {
            body = msg.data.length ? decodeJson(msg.data) : undefined;
          } catch {
            throw new ValidationError(what, [{ field: '(root)', message: 'body is not valid JSON' }]);
          }
          // PostgreSQL text cannot hold U+0000: refused here as the client's fault, not by the database.
          refuseNulCharacters(body, what);
          const request = parseOrThrow(definition.request, body, what) as z.output<D['request']>;
          if (definition.kind === 'query') await reachMinPosition(definition.service, msg.headers);
          reply = { ok: true, result: await recordingPositions(recorder, () => handler(request, ctx)) };
        } catch (error) {
          reply = { ok: false, error: toWireError(error, msg.subject, currentTraceId()) };
          span.setAttribute('error.type', reply.error.code);
          if (reply.error.code === 'INTERNAL.UNEXPECTED') options.onError?.(error, ctx);
        }
      },
    );
    let payload: Uint8Array;
    try {
      payload = encodeJson(reply!);
    } catch (error) {
      options.onError?.(error, ctx);
      payload = encodeJson({ ok: false, error: toWireError(error, msg.subject) });
    }
    await respondSoon(msg, payload, reply!.ok && definition.kind === 'command' ? positionHeaders(definition.service, recorder) : undefined);
  };

  const sub = nc.subscribe(definition.subject, {
    queue: options.queue ?? definition.service,
    callback: (error, msg) => {
      if (error || !msg.reply) return;
      const p: Promise<void> = answer(msg)
        .catch(() => undefined)
        .finally(() => inflight.delete(p));
      inflight.add(p);
    },
  });

  return {
    subject: definition.subject,
    async stop() {
      if (!sub.isClosed()) await sub.drain();
      await Promise.all(inflight);
    },
  };
}

/** The position a command reached: its own appends, else (a group commit appended them) this process's furthest append. */
function positionHeaders(service: string, recorder: PositionRecorder): MsgHdrs | undefined {
  const position = recorder.position ?? readPositionGate(service)?.appended();
  if (!position) return undefined;
  const h = natsHeaders();
  h.set(HsHeaders.position, formatPositionToken(service, position));
  return h;
}

/** Waits, bounded, until the service's read models have passed the caller's position in its log (tokens of other services are not its to wait for). */
async function reachMinPosition(service: string, headers: MsgHdrs | undefined): Promise<void> {
  const value = headerValue(headers, HsHeaders.minPosition);
  const gate = value ? readPositionGate(service) : undefined;
  if (!value || !gate) return;
  const mine = parsePositionTokens(value, HsHeaders.minPosition).filter((token) => token.service === service);
  if (mine.length === 0) return;
  const asked = Number(headerValue(headers, HsHeaders.maxWaitMs));
  const timeoutMs = Number.isFinite(asked) && asked >= 0 ? Math.min(asked, gate.maxWaitMs) : gate.maxWaitMs;
  const reached = await gate.waitFor(mine[mine.length - 1].position, timeoutMs);
  if (!reached) throw readModelTimeout(service, timeoutMs);
}
