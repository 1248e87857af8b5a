import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DEFAULT_MAX_CONCURRENT_AGENTS, listPersonas } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { PersonaPoolRow, PersonaRequestRow, PersonaRosterRow, PersonaSettingsRow } from '../persona-board.entity';

/** `list-personas`: the persona board (projection): who is free or active, the pools and the wait queue, optionally for one pool. */
@Controller()
export class ListPersonasHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listPersonas)
  async handle(@Payload() request: z.output<typeof listPersonas.request>) {
    const em = this.reads.em();
    const [settings, active, pools, roster, queue] = await Promise.all([
      em.findOne(PersonaSettingsRow, { id: 1 }),
      em.find(PersonaRequestRow, { status: 'granted' }),
      em.find(PersonaPoolRow, request.pool ? { pool: request.pool } : {}, { orderBy: { position: 'asc' } }),
      em.find(PersonaRosterRow, {}, { orderBy: { position: 'asc' } }),
      // Queue positions count every pool's waiters; the pool filter applies after.
      em.find(PersonaRequestRow, { status: 'queued' }, { orderBy: { seq: 'asc' } }),
    ]);
    const leases = new Map(active.map((r) => [r.personaId, r]));
    const members = request.pool ? new Set(pools.flatMap((p) => p.personas)) : null;
    return {
      maxConcurrentAgents: settings?.maxConcurrentAgents ?? DEFAULT_MAX_CONCURRENT_AGENTS,
      activeAgents: active.length,
      personas: roster
        .filter((r) => !members || members.has(r.personaId))
        .map(({ personaId, name, description, roleType, mode, pools, runtime }) => {
          const lease = leases.get(personaId);
          return {
            personaId,
            name,
            description,
            roleType,
            mode,
            pools,
            ...(runtime ? { runtime } : {}),
            status: lease ? ('active' as const) : ('available' as const),
            ...(lease ? { leaseId: lease.leaseId, ...(lease.taskId ? { taskId: lease.taskId } : {}) } : {}),
          };
        }),
      pools: pools.map(({ pool, personas }) => ({ pool, personas })),
      queue: queue
        .map(({ requestId, pool, taskId }, index) => ({ requestId, pool, ...(taskId ? { taskId } : {}), position: index + 1 }))
        .filter((r) => !request.pool || r.pool === request.pool),
    };
  }
}
