import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { releasePersona } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { grantsOf } from '../grants';
import { PersonaRegistry } from '../persona-registry.service';

/** `release-persona`: ends a lease; the oldest queued requests the freed persona/slot can serve are granted in the same append. */
@Controller()
export class ReleasePersonaHandler {
  constructor(private readonly registry: PersonaRegistry) {}

  @MessagePattern(releasePersona)
  async handle(@Payload() request: z.output<typeof releasePersona.request>, @Ctx() ctx: RequestContext) {
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({ type: 'release-persona', leaseId: request.leaseId, now: new Date().toISOString() }));
    const released = [...outcome.state.requests.values()].find((r) => r.leaseId === request.leaseId);
    return {
      leaseId: request.leaseId,
      personaId: released?.personaId ?? '',
      granted: grantsOf(outcome.events),
      streamVersion: outcome.streamVersion.toString(),
    };
  }
}
