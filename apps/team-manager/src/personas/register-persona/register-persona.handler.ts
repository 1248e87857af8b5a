import { Inject, Injectable } from '@nestjs/common';
import { registerPersona } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';
import { ServedHandler } from '@headspace/platform';

/** `register-persona`: adds a persona to the registry (refused when the id exists). */
@Injectable()
export class RegisterPersonaHandler extends ServedHandler<typeof registerPersona> {
  constructor(
    private readonly registry: PersonaRegistry,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(registerPersona, nc);
  }

  async handle(request: z.output<typeof registerPersona.request>, ctx: RequestContext) {
    const persona = {
      personaId: request.personaId,
      name: request.name,
      description: request.description,
      roleType: request.roleType,
      mode: request.mode ?? (request.roleType === 'workshop' ? ('workshop' as const) : ('execution' as const)),
      pools: request.pools,
    };
    const outcome = await this.registry.execute(ctx.commandId, ctx, () => ({ type: 'register-persona', persona, now: new Date().toISOString() }));
    return { persona: outcome.state.personas.get(request.personaId) ?? persona, streamVersion: outcome.streamVersion.toString() };
  }
}
