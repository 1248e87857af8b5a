import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { setPoolMembership } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { grantsOf } from '../grants';
import { PersonaRegistry } from '../persona-registry.service';

/** `set-pool-membership`: replaces a pool's members (creating the pool); queued requests it can now serve are granted. */
@Controller()
export class SetPoolMembershipHandler {
  constructor(private readonly registry: PersonaRegistry) {}

  @MessagePattern(setPoolMembership)
  async handle(@Payload() request: z.output<typeof setPoolMembership.request>, @Ctx() ctx: RequestContext) {
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({
      type: 'set-pool-membership',
      pool: request.pool,
      personas: request.personas,
      now: new Date().toISOString(),
    }));
    return {
      pool: request.pool,
      personas: outcome.state.pools.get(request.pool) ?? [],
      granted: grantsOf(outcome.events),
      streamVersion: outcome.streamVersion.toString(),
    };
  }
}
