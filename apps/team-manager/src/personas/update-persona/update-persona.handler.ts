import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, updatePersona } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';

/** `update-persona`: changes a persona's identity fields (only the fields given). */
@Controller()
export class UpdatePersonaHandler {
  constructor(private readonly registry: PersonaRegistry) {}

  @MessagePattern(updatePersona)
  async handle(@Payload() request: z.output<typeof updatePersona.request>, @Ctx() ctx: RequestContext) {
    const { personaId, ...patch } = request;
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({ type: 'update-persona', personaId, patch, now: new Date().toISOString() }));
    const persona = outcome.state.personas.get(personaId);
    if (!persona) throw new HeadspaceError(ErrorCodes.personaNotFound, `Persona "${personaId}" does not exist`, { field: 'personaId' });
    return { persona, streamVersion: outcome.streamVersion.toString() };
  }
}
