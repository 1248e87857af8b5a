import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { acquirePersona } from '@headspace/contracts';
import { idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';
import { ServedHandler } from '@headspace/platform';

/**
 * `acquire-persona` (seed §5.5, §8): grants a free persona of the pool (affinity first, then pool
 * order) under a lease, or queues the request and notifies the operator (`persona.pool-exhausted`).
 */
@Injectable()
export class AcquirePersonaHandler extends ServedHandler<typeof acquirePersona> {
  constructor(
    private readonly registry: PersonaRegistry,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(acquirePersona, nc);
  }

  async handle(request: z.output<typeof acquirePersona.request>, ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const requestId = idFromCommand(commandId, 'persona-request');
    const outcome = await this.registry.execute(commandId, ctx, () => ({
      type: 'acquire-persona',
      requestId,
      pool: request.pool,
      taskId: request.taskId,
      agentId: request.agentId,
      affinityPersonaId: request.affinityPersonaId,
      now: new Date().toISOString(),
    }));
    const status = outcome.state.requests.get(requestId)!;
    const position = outcome.state.queue.findIndex((q) => q.requestId === requestId);
    return {
      requestId,
      status: status.status,
      ...(status.leaseId ? { leaseId: status.leaseId, personaId: status.personaId } : {}),
      ...(position >= 0 ? { position: position + 1 } : {}),
      streamVersion: outcome.streamVersion.toString(),
    };
  }
}
