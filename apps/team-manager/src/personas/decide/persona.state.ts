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
import { evolveByType } from '@headspace/event-store';

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

export const initialPersonaState = (): PersonaState => ({
  maxConcurrentAgents: DEFAULT_MAX_CONCURRENT_AGENTS,
  personas: new Map(),
  pools: new Map(),
  leases: new Map(),
  activeByPersona: new Map(),
  queue: [],
  requests: new Map(),
});

export function personaNotFound(personaId: string, field: string): HeadspaceError {
  return new HeadspaceError(ErrorCodes.personaNotFound, `Persona "${personaId}" does not exist`, { field, details: { personaId } });
}

const withPersona = (state: PersonaState, persona: Persona): PersonaState => ({ ...state, personas: new Map(state.personas).set(persona.personaId, persona) });

/** A loaded config replaces the personas, pools and limit; leases, the queue and requests carry over. */
export const evolvePersonas = evolveByType<PersonaState, PersonaEvent>({
  'persona.config-loaded': (state, { data: d }) => ({
    ...state,
    configHash: d.hash,
    maxConcurrentAgents: d.maxConcurrentAgents,
    personas: new Map(d.personas.map((p) => [p.personaId, p])),
    pools: new Map(d.pools.map((p) => [p.pool, [...p.personas]])),
  }),
  'persona.registered': (state, { data }) => withPersona(state, data.persona),
  'persona.updated': (state, { data }) => withPersona(state, data.persona),
  'persona.pool-membership-set': (state, { data }) => ({ ...state, pools: new Map(state.pools).set(data.pool, [...data.personas]) }),
  'persona.max-concurrency-set': (state, { data }) => ({ ...state, maxConcurrentAgents: data.maxConcurrentAgents }),
  'persona.request-queued': (state, { data: d }) => ({
    ...state,
    queue: [...state.queue, { requestId: d.requestId, pool: d.pool, taskId: d.taskId, agentId: d.agentId, affinityPersonaId: d.affinityPersonaId }],
    requests: new Map(state.requests).set(d.requestId, { requestId: d.requestId, pool: d.pool, status: 'queued' }),
  }),
  'persona.granted': (state, { data: d }) => ({
    ...state,
    queue: state.queue.filter((q) => q.requestId !== d.requestId),
    leases: new Map(state.leases).set(d.leaseId, { leaseId: d.leaseId, requestId: d.requestId, personaId: d.personaId, pool: d.pool, taskId: d.taskId }),
    activeByPersona: new Map(state.activeByPersona).set(d.personaId, d.leaseId),
    requests: new Map(state.requests).set(d.requestId, { requestId: d.requestId, pool: d.pool, status: 'granted', leaseId: d.leaseId, personaId: d.personaId }),
  }),
  'persona.released': (state, { data: d }) => {
    const leases = new Map(state.leases);
    leases.delete(d.leaseId);
    const activeByPersona = new Map(state.activeByPersona);
    if (activeByPersona.get(d.personaId) === d.leaseId) activeByPersona.delete(d.personaId);
    const prior = state.requests.get(d.requestId);
    const requests = prior ? new Map(state.requests).set(d.requestId, { ...prior, status: 'released' as const }) : state.requests;
    return { ...state, leases, activeByPersona, requests };
  },
  'persona.request-cancelled': (state, { data }) => {
    const prior = state.requests.get(data.requestId);
    return {
      ...state,
      queue: state.queue.filter((q) => q.requestId !== data.requestId),
      requests: prior ? new Map(state.requests).set(prior.requestId, { ...prior, status: 'cancelled' as const }) : state.requests,
    };
  },
});
