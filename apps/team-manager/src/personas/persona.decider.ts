import {
  DEFAULT_MAX_CONCURRENT_AGENTS,
  ErrorCodes,
  HeadspaceError,
  type EventData,
  type Persona,
  type PersonaPool,
  type personaConfigLoaded,
  type personaGranted,
  type personaMaxConcurrencySet,
  type personaPoolExhausted,
  type personaPoolMembershipSet,
  type personaRegistered,
  type personaReleased,
  type personaRequestCancelled,
  type personaRequestQueued,
  type personaUpdated,
} from '@headspace/contracts';
import { idFromCommand, type Decider } from '@headspace/event-store';

export type PersonaEvent =
  | { type: 'persona.config-loaded'; data: EventData<typeof personaConfigLoaded> }
  | { type: 'persona.registered'; data: EventData<typeof personaRegistered> }
  | { type: 'persona.updated'; data: EventData<typeof personaUpdated> }
  | { type: 'persona.pool-membership-set'; data: EventData<typeof personaPoolMembershipSet> }
  | { type: 'persona.max-concurrency-set'; data: EventData<typeof personaMaxConcurrencySet> }
  | { type: 'persona.granted'; data: EventData<typeof personaGranted> }
  | { type: 'persona.request-queued'; data: EventData<typeof personaRequestQueued> }
  | { type: 'persona.pool-exhausted'; data: EventData<typeof personaPoolExhausted> }
  | { type: 'persona.released'; data: EventData<typeof personaReleased> }
  | { type: 'persona.request-cancelled'; data: EventData<typeof personaRequestCancelled> };

export interface Lease {
  leaseId: string;
  requestId: string;
  personaId: string;
  pool: string;
  taskId?: string;
}

export interface QueuedRequest {
  requestId: string;
  pool: string;
  taskId?: string;
  agentId?: string;
  affinityPersonaId?: string;
}

export interface RequestStatus {
  requestId: string;
  pool: string;
  status: 'queued' | 'granted' | 'released' | 'cancelled';
  leaseId?: string;
  personaId?: string;
}

export interface PersonaState {
  configHash?: string;
  maxConcurrentAgents: number;
  personas: Map<string, Persona>;
  /** Pool → members in selection order. */
  pools: Map<string, string[]>;
  leases: Map<string, Lease>;
  /** Persona → the lease it is active under. */
  activeByPersona: Map<string, string>;
  queue: QueuedRequest[];
  requests: Map<string, RequestStatus>;
}

export interface PersonaConfig {
  maxConcurrentAgents: number;
  personas: Persona[];
  pools: PersonaPool[];
}

export type PersonaCommand =
  | { type: 'load-config'; source: string; hash: string; config: PersonaConfig; now: string }
  | { type: 'register-persona'; persona: Persona; now: string }
  | { type: 'update-persona'; personaId: string; patch: Partial<Omit<Persona, 'personaId'>>; now: string }
  | { type: 'set-pool-membership'; pool: string; personas: string[]; now: string }
  | { type: 'set-max-concurrent-agents'; maxConcurrentAgents: number; now: string }
  | { type: 'acquire-persona'; requestId: string; pool: string; taskId?: string; agentId?: string; affinityPersonaId?: string; now: string }
  | { type: 'release-persona'; leaseId: string; now: string }
  | { type: 'cancel-persona-request'; requestId: string; now: string };

/** The lease a request is granted under: a request is granted at most once, so its id determines the lease id. */
export const leaseIdFor = (requestId: string) => idFromCommand(requestId, 'persona-lease');

const initialState = (): PersonaState => ({
  maxConcurrentAgents: DEFAULT_MAX_CONCURRENT_AGENTS,
  personas: new Map(),
  pools: new Map(),
  leases: new Map(),
  activeByPersona: new Map(),
  queue: [],
  requests: new Map(),
});

function evolve(state: PersonaState, event: PersonaEvent): PersonaState {
  switch (event.type) {
    case 'persona.config-loaded': {
      const d = event.data;
      return {
        ...state,
        configHash: d.hash,
        maxConcurrentAgents: d.maxConcurrentAgents,
        personas: new Map(d.personas.map((p) => [p.personaId, p])),
        pools: new Map(d.pools.map((p) => [p.pool, [...p.personas]])),
      };
    }
    case 'persona.registered':
    case 'persona.updated': {
      const persona = event.data.persona;
      return { ...state, personas: new Map(state.personas).set(persona.personaId, persona) };
    }
    case 'persona.pool-membership-set':
      return { ...state, pools: new Map(state.pools).set(event.data.pool, [...event.data.personas]) };
    case 'persona.max-concurrency-set':
      return { ...state, maxConcurrentAgents: event.data.maxConcurrentAgents };
    case 'persona.request-queued': {
      const d = event.data;
      const queued: QueuedRequest = { requestId: d.requestId, pool: d.pool, taskId: d.taskId, agentId: d.agentId, affinityPersonaId: d.affinityPersonaId };
      return {
        ...state,
        queue: [...state.queue, queued],
        requests: new Map(state.requests).set(d.requestId, { requestId: d.requestId, pool: d.pool, status: 'queued' }),
      };
    }
    case 'persona.granted': {
      const d = event.data;
      return {
        ...state,
        queue: state.queue.filter((q) => q.requestId !== d.requestId),
        leases: new Map(state.leases).set(d.leaseId, { leaseId: d.leaseId, requestId: d.requestId, personaId: d.personaId, pool: d.pool, taskId: d.taskId }),
        activeByPersona: new Map(state.activeByPersona).set(d.personaId, d.leaseId),
        requests: new Map(state.requests).set(d.requestId, {
          requestId: d.requestId,
          pool: d.pool,
          status: 'granted',
          leaseId: d.leaseId,
          personaId: d.personaId,
        }),
      };
    }
    case 'persona.released': {
      const d = event.data;
      const leases = new Map(state.leases);
      leases.delete(d.leaseId);
      const activeByPersona = new Map(state.activeByPersona);
      if (activeByPersona.get(d.personaId) === d.leaseId) activeByPersona.delete(d.personaId);
      const prior = state.requests.get(d.requestId);
      const requests = prior ? new Map(state.requests).set(d.requestId, { ...prior, status: 'released' as const }) : state.requests;
      return { ...state, leases, activeByPersona, requests };
    }
    case 'persona.request-cancelled': {
      const prior = state.requests.get(event.data.requestId);
      return {
        ...state,
        queue: state.queue.filter((q) => q.requestId !== event.data.requestId),
        requests: prior ? new Map(state.requests).set(prior.requestId, { ...prior, status: 'cancelled' as const }) : state.requests,
      };
    }
    case 'persona.pool-exhausted':
      return state;
    default:
      return state;
  }
}

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
    current = evolve(current, event);
  }
  return events;
}

/** Applies the config change events, then grants what the change freed up. */
function withDrain(state: PersonaState, events: PersonaEvent[], now: string): PersonaEvent[] {
  const after = events.reduce(evolve, state);
  return [...events, ...drainQueue(after, now)];
}

function personaNotFound(personaId: string, field: string): HeadspaceError {
  return new HeadspaceError(ErrorCodes.personaNotFound, `Persona "${personaId}" does not exist`, { field, details: { personaId } });
}

function decide(command: PersonaCommand, state: PersonaState): PersonaEvent[] {
  switch (command.type) {
    case 'load-config': {
      if (state.configHash === command.hash) return [];
      const { config } = command;
      return withDrain(
        state,
        [
          {
            type: 'persona.config-loaded',
            data: {
              source: command.source,
              hash: command.hash,
              maxConcurrentAgents: config.maxConcurrentAgents,
              personas: config.personas,
              pools: config.pools,
              loadedAt: command.now,
            },
          },
        ],
        command.now,
      );
    }
    case 'register-persona': {
      const { persona } = command;
      if (state.personas.has(persona.personaId)) {
        throw new HeadspaceError(ErrorCodes.personaAlreadyExists, `Persona "${persona.personaId}" already exists`, { field: 'personaId' });
      }
      return [{ type: 'persona.registered', data: { persona, registeredAt: command.now } }];
    }
    case 'update-persona': {
      const existing = state.personas.get(command.personaId);
      if (!existing) throw personaNotFound(command.personaId, 'personaId');
      const patch = Object.fromEntries(Object.entries(command.patch).filter(([, v]) => v !== undefined));
      return [{ type: 'persona.updated', data: { persona: { ...existing, ...patch, personaId: existing.personaId }, updatedAt: command.now } }];
    }
    case 'set-pool-membership': {
      command.personas.forEach((id, i) => {
        if (!state.personas.has(id)) throw personaNotFound(id, `personas.${i}`);
      });
      const personas = [...new Set(command.personas)];
      return withDrain(state, [{ type: 'persona.pool-membership-set', data: { pool: command.pool, personas, setAt: command.now } }], command.now);
    }
    case 'set-max-concurrent-agents':
      return withDrain(
        state,
        [{ type: 'persona.max-concurrency-set', data: { maxConcurrentAgents: command.maxConcurrentAgents, setAt: command.now } }],
        command.now,
      );
    case 'acquire-persona': {
      if (!state.pools.has(command.pool)) {
        throw new HeadspaceError(ErrorCodes.poolNotFound, `Pool "${command.pool}" does not exist`, { field: 'pool', details: { pool: command.pool } });
      }
      if (command.affinityPersonaId && !state.personas.has(command.affinityPersonaId)) {
        throw personaNotFound(command.affinityPersonaId, 'affinityPersonaId');
      }
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
    case 'release-persona': {
      const lease = state.leases.get(command.leaseId);
      if (!lease) {
        throw new HeadspaceError(ErrorCodes.personaLeaseNotFound, `No active persona lease "${command.leaseId}"`, { field: 'leaseId' });
      }
      return withDrain(
        state,
        [{ type: 'persona.released', data: { leaseId: lease.leaseId, requestId: lease.requestId, personaId: lease.personaId, releasedAt: command.now } }],
        command.now,
      );
    }
    case 'cancel-persona-request': {
      const request = state.requests.get(command.requestId);
      if (!request) {
        throw new HeadspaceError(ErrorCodes.personaRequestNotFound, `No persona request "${command.requestId}"`, { field: 'requestId' });
      }
      if (request.status !== 'queued') return [];
      return [{ type: 'persona.request-cancelled', data: { requestId: request.requestId, pool: request.pool, cancelledAt: command.now } }];
    }
  }
}

export const personaDecider: Decider<PersonaCommand, PersonaState, PersonaEvent> = { initialState, decide, evolve };
