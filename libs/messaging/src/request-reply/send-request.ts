import { randomUUID } from 'node:crypto';
import { HeadspaceError, parseOrThrow, type RequestDefinition } from '@headspace/contracts';
import { injectContext, withSpan, SpanKind } from '@headspace/telemetry';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { headerCarrier, HsHeaders, natsHeaders } from '../headers/hs-headers';
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
  const timeoutMs = options.timeoutMs ?? 5_000;
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
      injectContext(headerCarrier(h));
      let data: Uint8Array;
      try {
        data = (await nc.request(definition.subject, encodeJson(body), { timeout: timeoutMs, headers: h })).data;
      } catch (error) {
        throw fromNatsRequestError(error, definition.subject, timeoutMs);
      }
      const reply = readReply(data, definition.subject);
      if (!reply.ok) {
        span.setAttribute('error.type', reply.error.code);
        throw HeadspaceError.fromWire(reply.error);
      }
      try {
        return parseOrThrow(definition.response, reply.result, `${definition.name} response`) as z.output<D['response']>;
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
