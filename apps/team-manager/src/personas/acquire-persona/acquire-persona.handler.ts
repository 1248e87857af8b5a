import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { acquirePersona } from '@headspace/contracts';
import { idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { PersonaRegistry } from '../persona-registry.service';

/**
 * `acquire-persona` (seed §5.5, §8): grants a free persona of the pool (affinity first, then pool
 * order) under a lease, or queues the request and notifies the operator (`persona.pool-exhausted`).
 */
@Controller()
export class AcquirePersonaHandler {
  constructor(private readonly registry: PersonaRegistry) {}

  @MessagePattern(acquirePersona)
  async handle(@Payload() request: z.output<typeof acquirePersona.request>, @Ctx() ctx: RequestContext) {
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
