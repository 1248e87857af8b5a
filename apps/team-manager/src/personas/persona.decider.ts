import { decideByType, type Decider } from '@headspace/event-store';
import {
  acquirePersona,
  cancelPersonaRequest,
  releasePersona,
  type AcquirePersona,
  type CancelPersonaRequest,
  type ReleasePersona,
} from './decide/persona-lease.decisions';
import {
  loadConfig,
  registerPersona,
  setMaxConcurrentAgents,
  setPoolMembership,
  updatePersona,
  type LoadConfig,
  type RegisterPersona,
  type SetMaxConcurrentAgents,
  type SetPoolMembership,
  type UpdatePersona,
} from './decide/persona-registry.decisions';
import { evolvePersonas, initialPersonaState, type PersonaEvent, type PersonaState } from './decide/persona.state';

export { leaseIdFor } from './decide/persona-lease.decisions';
export type { Lease, PersonaConfig, PersonaEvent, PersonaState, QueuedRequest, RequestStatus } from './decide/persona.state';
export type { AcquirePersona, CancelPersonaRequest, LoadConfig, RegisterPersona, ReleasePersona, SetMaxConcurrentAgents, SetPoolMembership, UpdatePersona };

/**
 * The persona registry (stream `persona-registry`): personas, pools, the agent limit, and the leases and queue of
 * persona requests, decided together so a grant never exceeds the limit or gives one persona twice.
 */
export type PersonaCommand =
  | LoadConfig
  | RegisterPersona
  | UpdatePersona
  | SetPoolMembership
  | SetMaxConcurrentAgents
  | AcquirePersona
  | ReleasePersona
  | CancelPersonaRequest;

export const personaDecider: Decider<PersonaCommand, PersonaState, PersonaEvent> = {
  initialState: initialPersonaState,
  decide: decideByType<PersonaCommand, PersonaState, PersonaEvent>({
    'load-config': loadConfig,
    'register-persona': registerPersona,
    'update-persona': updatePersona,
    'set-pool-membership': setPoolMembership,
    'set-max-concurrent-agents': setMaxConcurrentAgents,
    'acquire-persona': acquirePersona,
    'release-persona': releasePersona,
    'cancel-persona-request': cancelPersonaRequest,
  }),
  evolve: evolvePersonas,
};
