import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { registerPersona } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';

/** `register-persona`: adds a persona to the registry (refused when the id exists). */
@Controller()
export class RegisterPersonaHandler {
  constructor(private readonly registry: PersonaRegistry) {}

  @MessagePattern(registerPersona)
  async handle(@Payload() request: z.output<typeof registerPersona.request>, @Ctx() ctx: RequestContext) {
    const persona = {
      personaId: request.personaId,
      name: request.name,
      description: request.description,
      roleType: request.roleType,
      mode: request.mode ?? (request.roleType === 'workshop' ? ('workshop' as const) : ('execution' as const)),
      pools: request.pools,
      ...(request.runtime ? { runtime: request.runtime } : {}),
    };
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({ type: 'register-persona', persona, now: new Date().toISOString() }));
    return { persona: outcome.state.personas.get(request.personaId) ?? persona, streamVersion: outcome.streamVersion.toString() };
  }
}
