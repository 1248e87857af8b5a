import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, updatePersona } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';
import { ServedHandler } from '@headspace/platform';

/** `update-persona`: changes a persona's identity fields (only the fields given). */
@Injectable()
export class UpdatePersonaHandler extends ServedHandler<typeof updatePersona> {
  constructor(
    private readonly registry: PersonaRegistry,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(updatePersona, nc);
  }

  async handle(request: z.output<typeof updatePersona.request>, ctx: RequestContext) {
    const { personaId, ...patch } = request;
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({ type: 'update-persona', personaId, patch, now: new Date().toISOString() }));
    const persona = outcome.state.personas.get(personaId);
    if (!persona) throw new HeadspaceError(ErrorCodes.personaNotFound, `Persona "${personaId}" does not exist`, { field: 'personaId' });
    return { persona, streamVersion: outcome.streamVersion.toString() };
  }
}
