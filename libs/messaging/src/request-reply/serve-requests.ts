import { randomUUID } from 'node:crypto';
import { parseOrThrow, ValidationError, type RequestDefinition } from '@headspace/contracts';
import { currentTraceId, extractContext, injectContext, recordCarrier, withSpan, SpanKind } from '@headspace/telemetry';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { z } from 'zod';
import { headersToRecord, headerValue, HsHeaders, optionalHeaderCarrier } from '../headers/hs-headers';
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
 * The request is parsed with the contract's zod schema: a bad one is answered with a ValidationError
 * naming the field and the handler never runs. Replies are `{ ok: true, result }` or
 * `{ ok: false, error: WireError }`.
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
          const request = parseOrThrow(definition.request, body, what) as z.output<D['request']>;
          reply = { ok: true, result: await handler(request, ctx) };
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
    await respondSoon(msg, payload);
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
