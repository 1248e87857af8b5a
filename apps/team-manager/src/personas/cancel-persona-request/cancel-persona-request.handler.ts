import { Inject, Injectable } from '@nestjs/common';
import { cancelPersonaRequest } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';
import { ServedHandler } from '@headspace/platform';

/** `cancel-persona-request`: takes a queued request out of the queue; a granted or released one is reported as it stands. */
@Injectable()
export class CancelPersonaRequestHandler extends ServedHandler<typeof cancelPersonaRequest> {
  constructor(
    private readonly registry: PersonaRegistry,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(cancelPersonaRequest, nc);
  }

  async handle(request: z.output<typeof cancelPersonaRequest.request>, ctx: RequestContext) {
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({
      type: 'cancel-persona-request',
      requestId: request.requestId,
      now: new Date().toISOString(),
    }));
    const status = outcome.state.requests.get(request.requestId)?.status ?? 'cancelled';
    return { requestId: request.requestId, status: status === 'queued' ? 'cancelled' : status, streamVersion: outcome.streamVersion.toString() };
  }
}
