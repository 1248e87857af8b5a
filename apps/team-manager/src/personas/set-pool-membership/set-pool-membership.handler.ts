import { Inject, Injectable } from '@nestjs/common';
import { setPoolMembership } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { grantsOf } from '../grants';
import { PersonaRegistry } from '../persona-registry.service';
import { ServedHandler } from '@headspace/platform';

/** `set-pool-membership`: replaces a pool's members (creating the pool); queued requests it can now serve are granted. */
@Injectable()
export class SetPoolMembershipHandler extends ServedHandler<typeof setPoolMembership> {
  constructor(
    private readonly registry: PersonaRegistry,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(setPoolMembership, nc);
  }

  async handle(request: z.output<typeof setPoolMembership.request>, ctx: RequestContext) {
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
