import { ErrorCodes, HeadspaceError, type Persona } from '@headspace/contracts';
import { withDrain } from './persona-lease.decisions';
import { personaNotFound, type PersonaConfig, type PersonaEvent, type PersonaState } from './persona.state';

export interface LoadConfig {
  type: 'load-config';
  source: string;
  hash: string;
  config: PersonaConfig;
  now: string;
}
export interface RegisterPersona {
  type: 'register-persona';
  persona: Persona;
  now: string;
}
export interface UpdatePersona {
  type: 'update-persona';
  personaId: string;
  patch: Partial<Omit<Persona, 'personaId'>>;
  now: string;
}
export interface SetPoolMembership {
  type: 'set-pool-membership';
  pool: string;
  personas: string[];
  now: string;
}
export interface SetMaxConcurrentAgents {
  type: 'set-max-concurrent-agents';
  maxConcurrentAgents: number;
  now: string;
}

/** A config file is applied once per content hash, and grants what the new pools and limit free up. */
export function loadConfig(command: LoadConfig, state: PersonaState): PersonaEvent[] {
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

/** A persona id is registered once. */
export function registerPersona(command: RegisterPersona, state: PersonaState): PersonaEvent[] {
  const { persona } = command;
  if (state.personas.has(persona.personaId)) {
    throw new HeadspaceError(ErrorCodes.personaAlreadyExists, `Persona "${persona.personaId}" already exists`, { field: 'personaId' });
  }
  return [{ type: 'persona.registered', data: { persona, registeredAt: command.now } }];
}

/** Only a known persona is updated: the fields the patch sets change, its id never. */
export function updatePersona(command: UpdatePersona, state: PersonaState): PersonaEvent[] {
  const existing = state.personas.get(command.personaId);
  if (!existing) throw personaNotFound(command.personaId, 'personaId');
  const patch = Object.fromEntries(Object.entries(command.patch).filter(([, v]) => v !== undefined));
  return [{ type: 'persona.updated', data: { persona: { ...existing, ...patch, personaId: existing.personaId }, updatedAt: command.now } }];
}

/** A pool holds known personas only, each once, in the order given; new members serve the queue at once. */
export function setPoolMembership(command: SetPoolMembership, state: PersonaState): PersonaEvent[] {
  command.personas.forEach((id, i) => {
    if (!state.personas.has(id)) throw personaNotFound(id, `personas.${i}`);
  });
  const personas = [...new Set(command.personas)];
  return withDrain(state, [{ type: 'persona.pool-membership-set', data: { pool: command.pool, personas, setAt: command.now } }], command.now);
}

/** A raised agent limit serves the queue at once; a lowered one ends no lease. */
export function setMaxConcurrentAgents(command: SetMaxConcurrentAgents, state: PersonaState): PersonaEvent[] {
  return withDrain(state, [{ type: 'persona.max-concurrency-set', data: { maxConcurrentAgents: command.maxConcurrentAgents, setAt: command.now } }], command.now);
}
