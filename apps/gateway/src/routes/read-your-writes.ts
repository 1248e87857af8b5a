import type { RequestDefinition } from '@headspace/contracts';
import { formatPositionToken, mergePositionTokens, parsePositionTokens, sendRequest, type PositionToken, type SendRequestOptions } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';

/** Response header of a command: the log position(s) it reached. */
export const POSITION_HEADER = 'Headspace-Position';
/** Request header of a query: answer once the read models have passed these positions. */
export const MIN_POSITION_HEADER = 'Headspace-Min-Position';

/**
 * Reading one's own writes through the gateway: the positions of a request's commands go back in
 * Headspace-Position; a Headspace-Min-Position on the request goes with its queries to the services,
 * which answer once their read models have passed it (or 503 READ_MODEL.TIMEOUT past the bound).
 */
export class ReadYourWrites {
  private readonly minPosition?: string;
  private reached: PositionToken[] = [];

  /** A malformed Headspace-Min-Position is a 400 naming it, before anything is sent. */
  constructor(req: FastifyRequest) {
    const value = req.headers[MIN_POSITION_HEADER.toLowerCase()];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (text) this.minPosition = parsePositionTokens(text, MIN_POSITION_HEADER).map((t) => formatPositionToken(t.service, t.position)).join(',');
  }

  async send<D extends RequestDefinition>(nc: NatsConnection, definition: D, body: unknown, options: SendRequestOptions): Promise<z.output<D['response']>> {
    const query = definition.kind === 'query' && this.minPosition;
    const sent = await sendRequest(nc, definition, body as never, query ? { ...options, minPosition: this.minPosition } : options);
    if (sent.position) this.reached = mergePositionTokens(this.reached, parsePositionTokens(sent.position, 'Hs-Position'));
    return sent.result;
  }

  /** Sets Headspace-Position when the request's commands reached a position. */
  answer(reply: FastifyReply | undefined): void {
    if (reply && this.reached.length) void reply.header(POSITION_HEADER, this.reached.map((t) => formatPositionToken(t.service, t.position)).join(', '));
  }
}
