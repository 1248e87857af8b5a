import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { setMaxConcurrentAgents } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { grantsOf } from '../grants';
import { PersonaRegistry } from '../persona-registry.service';

/** `set-max-concurrent-agents` (seed §8.1): raising the limit grants queued requests at once; lowering it never revokes a lease. */
@Controller()
export class SetMaxConcurrentAgentsHandler {
  constructor(private readonly registry: PersonaRegistry) {}

  @MessagePattern(setMaxConcurrentAgents)
  async handle(@Payload() request: z.output<typeof setMaxConcurrentAgents.request>, @Ctx() ctx: RequestContext) {
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({
      type: 'set-max-concurrent-agents',
      maxConcurrentAgents: request.maxConcurrentAgents,
      now: new Date().toISOString(),
    }));
    return {
      maxConcurrentAgents: outcome.state.maxConcurrentAgents,
      granted: grantsOf(outcome.events),
      streamVersion: outcome.streamVersion.toString(),
    };
  }
}
