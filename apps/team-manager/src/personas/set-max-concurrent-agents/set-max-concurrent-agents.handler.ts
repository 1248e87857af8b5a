import { Inject, Injectable } from '@nestjs/common';
import { setMaxConcurrentAgents } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { grantsOf } from '../grants';
import { PersonaRegistry } from '../persona-registry.service';
import { ServedHandler } from '@headspace/platform';

/** `set-max-concurrent-agents` (seed §8.1): raising the limit grants queued requests at once; lowering it never revokes a lease. */
@Injectable()
export class SetMaxConcurrentAgentsHandler extends ServedHandler<typeof setMaxConcurrentAgents> {
  constructor(
    private readonly registry: PersonaRegistry,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(setMaxConcurrentAgents, nc);
  }

  async handle(request: z.output<typeof setMaxConcurrentAgents.request>, ctx: RequestContext) {
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
