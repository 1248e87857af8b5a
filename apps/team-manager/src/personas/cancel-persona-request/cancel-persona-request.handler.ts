import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { cancelPersonaRequest } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';

/** `cancel-persona-request`: takes a queued request out of the queue; a granted or released one is reported as it stands. */
@Controller()
export class CancelPersonaRequestHandler {
  constructor(private readonly registry: PersonaRegistry) {}

  @MessagePattern(cancelPersonaRequest)
  async handle(@Payload() request: z.output<typeof cancelPersonaRequest.request>, @Ctx() ctx: RequestContext) {
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({
      type: 'cancel-persona-request',
      requestId: request.requestId,
      now: new Date().toISOString(),
    }));
    const status = outcome.state.requests.get(request.requestId)?.status ?? 'cancelled';
    return { requestId: request.requestId, status: status === 'queued' ? 'cancelled' : status, streamVersion: outcome.streamVersion.toString() };
  }
}
