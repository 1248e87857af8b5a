import { Inject, Injectable } from '@nestjs/common';
import { releasePersona } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { grantsOf } from '../grants';
import { PersonaRegistry } from '../persona-registry.service';
import { ServedHandler } from '@headspace/platform';

/** `release-persona`: ends a lease; the oldest queued requests the freed persona/slot can serve are granted in the same append. */
@Injectable()
export class ReleasePersonaHandler extends ServedHandler<typeof releasePersona> {
  constructor(
    private readonly registry: PersonaRegistry,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(releasePersona, nc);
  }

  async handle(request: z.output<typeof releasePersona.request>, ctx: RequestContext) {
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
