import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { idFromCommand } from '@headspace/event-store';
import { evolvePersonas, personaNotFound, type PersonaEvent, type PersonaState } from './persona.state';

export interface AcquirePersona {
  type: 'acquire-persona';
  requestId: string;
  pool: string;
  taskId?: string;
  agentId?: string;
  affinityPersonaId?: string;
  now: string;
}
export interface ReleasePersona {
  type: 'release-persona';
  leaseId: string;
  now: string;
}
export interface CancelPersonaRequest {
  type: 'cancel-persona-request';
  requestId: string;
  now: string;
}

/** The lease a request is granted under: a request is granted at most once, so its id determines the lease id. */
export const leaseIdFor = (requestId: string) => idFromCommand(requestId, 'persona-lease');

/** The persona a request would get now, or null: the affinity persona when it is a free member, else the first free member in pool order. */
function pick(state: PersonaState, pool: string, affinityPersonaId?: string): { personaId: string; affinity: boolean } | null {
  if (state.leases.size >= state.maxConcurrentAgents) return null;
  const members = (state.pools.get(pool) ?? []).filter((id) => state.personas.has(id) && !state.activeByPersona.has(id));
  if (affinityPersonaId && members.includes(affinityPersonaId)) return { personaId: affinityPersonaId, affinity: true };
  return members.length ? { personaId: members[0], affinity: false } : null;
}

/** Grants every queued request that can now be served, oldest first (applied to `state` as it goes). */
function drainQueue(state: PersonaState, now: string): PersonaEvent[] {
  const events: PersonaEvent[] = [];
  let current = state;
  for (const queued of state.queue) {
    const choice = pick(current, queued.pool, queued.affinityPersonaId);
    if (!choice) continue;
    const event: PersonaEvent = {
      type: 'persona.granted',
      data: {
        requestId: queued.requestId,
        leaseId: leaseIdFor(queued.requestId),
        personaId: choice.personaId,
        pool: queued.pool,
        ...(queued.taskId === undefined ? {} : { taskId: queued.taskId }),
        ...(queued.agentId === undefined ? {} : { agentId: queued.agentId }),
        affinity: choice.affinity,
        fromQueue: true,
        grantedAt: now,
      },
    };
    events.push(event);
    current = evolvePersonas(current, event);
  }
  return events;
}

/** A change that may free capacity (config, pools, limit, a release): its events, then the grants of what it freed. */
export function withDrain(state: PersonaState, events: PersonaEvent[], now: string): PersonaEvent[] {
  const after = events.reduce(evolvePersonas, state);
  return [...events, ...drainQueue(after, now)];
}

/**
 * A request for a known pool is granted a free member at once (the affinity persona first) within
 * the agent limit, else queued with the operator notified; a request id is decided once.
 */
export function acquirePersona(command: AcquirePersona, state: PersonaState): PersonaEvent[] {
  if (!state.pools.has(command.pool)) {
    throw new HeadspaceError(ErrorCodes.poolNotFound, `Pool "${command.pool}" does not exist`, { field: 'pool', details: { pool: command.pool } });
  }
  if (command.affinityPersonaId && !state.personas.has(command.affinityPersonaId)) throw personaNotFound(command.affinityPersonaId, 'affinityPersonaId');
  if (state.requests.has(command.requestId)) return [];
  const refs = {
    ...(command.taskId === undefined ? {} : { taskId: command.taskId }),
    ...(command.agentId === undefined ? {} : { agentId: command.agentId }),
  };
  const choice = pick(state, command.pool, command.affinityPersonaId);
  if (choice) {
    return [
      {
        type: 'persona.granted',
        data: {
          requestId: command.requestId,
          leaseId: leaseIdFor(command.requestId),
          personaId: choice.personaId,
          pool: command.pool,
          ...refs,
          affinity: choice.affinity,
          fromQueue: false,
          grantedAt: command.now,
        },
      },
    ];
  }
  const reason = state.leases.size >= state.maxConcurrentAgents ? 'max-concurrency' : 'pool-exhausted';
  const position = state.queue.length + 1;
  return [
    {
      type: 'persona.request-queued',
      data: {
        requestId: command.requestId,
        pool: command.pool,
        ...refs,
        ...(command.affinityPersonaId === undefined ? {} : { affinityPersonaId: command.affinityPersonaId }),
        reason,
        position,
        queuedAt: command.now,
      },
    },
    {
      type: 'persona.pool-exhausted',
      data: {
        requestId: command.requestId,
        pool: command.pool,
        reason,
        activeAgents: state.leases.size,
        maxConcurrentAgents: state.maxConcurrentAgents,
        queueLength: position,
        notifiedAt: command.now,
      },
    },
  ];
}

/** Only an active lease is released; the persona it frees goes to the oldest queued request it can serve. */
export function releasePersona(command: ReleasePersona, state: PersonaState): PersonaEvent[] {
  const lease = state.leases.get(command.leaseId);
  if (!lease) throw new HeadspaceError(ErrorCodes.personaLeaseNotFound, `No active persona lease "${command.leaseId}"`, { field: 'leaseId' });
  return withDrain(
    state,
    [{ type: 'persona.released', data: { leaseId: lease.leaseId, requestId: lease.requestId, personaId: lease.personaId, releasedAt: command.now } }],
    command.now,
  );
}

/** A known request is cancelled only while queued; a granted, released or cancelled one decides nothing. */
export function cancelPersonaRequest(command: CancelPersonaRequest, state: PersonaState): PersonaEvent[] {
  const request = state.requests.get(command.requestId);
  if (!request) throw new HeadspaceError(ErrorCodes.personaRequestNotFound, `No persona request "${command.requestId}"`, { field: 'requestId' });
  if (request.status !== 'queued') return [];
  return [{ type: 'persona.request-cancelled', data: { requestId: request.requestId, pool: request.pool, cancelledAt: command.now } }];
}
