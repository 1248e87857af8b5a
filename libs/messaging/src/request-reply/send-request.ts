import { randomUUID } from 'node:crypto';
import { HeadspaceError, parseOrThrow, type RequestDefinition } from '@headspace/contracts';
import { injectContext, withSpan, SpanKind } from '@headspace/telemetry';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { headerCarrier, headerValue, HsHeaders, natsHeaders } from '../headers/hs-headers';
import { fromNatsRequestError, MessagingError, MessagingErrorCodes } from '../messaging-error';
import { encodeJson, readReply } from './reply-envelope';

export interface SendRequestOptions {
  /** Default 5000 ms; then MESSAGING.TIMEOUT. */
  timeoutMs?: number;
  /** Idempotency key of a command; generated when absent. Retries must reuse it. */
  commandId?: string;
  /** Default: the command id (commands) or a new id (queries). */
  correlationId?: string;
  causationId?: string;
  headers?: Record<string, string>;
  /**
   * A query answered only once the service's read models have passed these positions (tokens from
   * earlier commands' replies, comma-separated). The wait comes on top of `timeoutMs`.
   */
  minPosition?: string;
  /** With `minPosition`: the longest the service may wait for it (default 5000 ms; the service may bound it lower). */
  maxWaitMs?: number;
}

export interface SentRequest<T> {
  result: T;
  /** A command's log position token (Hs-Position of its reply), to read its writes with `minPosition`. */
  position?: string;
}

/**
 * Sends a command or query and returns its parsed result. Failures are HeadspaceErrors with their
 * code intact: the handler's own (rebuilt from the wire), CONTRACTS.VALIDATION_FAILED for a bad
 * request, MESSAGING.TIMEOUT, MESSAGING.NO_RESPONDERS.
 */
export async function request<D extends RequestDefinition>(
  nc: NatsConnection,
  definition: D,
  body: z.input<D['request']>,
  options: SendRequestOptions = {},
): Promise<z.output<D['response']>> {
  return (await sendRequest(nc, definition, body, options)).result;
}

/** `request`, with the log position a command's reply carries. */
export async function sendRequest<D extends RequestDefinition>(
  nc: NatsConnection,
  definition: D,
  body: z.input<D['request']>,
  options: SendRequestOptions = {},
): Promise<SentRequest<z.output<D['response']>>> {
  const maxWaitMs = options.minPosition ? (options.maxWaitMs ?? 5_000) : 0;
  const timeoutMs = (options.timeoutMs ?? 5_000) + maxWaitMs;
  const commandId = options.commandId ?? (definition.kind === 'command' ? randomUUID() : undefined);
  const correlationId = options.correlationId ?? commandId ?? randomUUID();
  return withSpan(
    `request ${definition.subject}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'rpc.system': 'nats',
        'messaging.system': 'nats',
        'messaging.destination.name': definition.subject,
        ...(commandId ? { 'headspace.command_id': commandId } : {}),
        'headspace.correlation_id': correlationId,
      },
    },
    async (span) => {
      const h = natsHeaders();
      for (const [k, v] of Object.entries(options.headers ?? {})) h.set(k, v);
      if (commandId) h.set(HsHeaders.commandId, commandId);
      h.set(HsHeaders.correlationId, correlationId);
      if (options.causationId) h.set(HsHeaders.causationId, options.causationId);
      if (options.minPosition) {
        h.set(HsHeaders.minPosition, options.minPosition);
        h.set(HsHeaders.maxWaitMs, String(maxWaitMs));
      }
      injectContext(headerCarrier(h));
      let msg: Msg;
      try {
        msg = await nc.request(definition.subject, encodeJson(body), { timeout: timeoutMs, headers: h });
      } catch (error) {
        throw fromNatsRequestError(error, definition.subject, timeoutMs);
      }
      const reply = readReply(msg.data, definition.subject);
      if (!reply.ok) {
        span.setAttribute('error.type', reply.error.code);
        throw HeadspaceError.fromWire(reply.error);
      }
      const position = headerValue(msg.headers, HsHeaders.position);
      try {
        const result = parseOrThrow(definition.response, reply.result, `${definition.name} response`) as z.output<D['response']>;
        return position ? { result, position } : { result };
      } catch (error) {
        throw new MessagingError(MessagingErrorCodes.badReply, `Reply on ${definition.subject} does not match its contract`, {
          field: (error as HeadspaceError).field,
          details: (error as HeadspaceError).details,
          cause: error,
        });
      }
    },
  );
}
