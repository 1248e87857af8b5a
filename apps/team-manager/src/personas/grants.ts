import type { PersonaEvent } from './persona.decider';

/** The grants among a command's events (requests served from the queue by a release or a config change). */
export function grantsOf(events: PersonaEvent[]) {
  return events.flatMap((e) =>
    e.type === 'persona.granted' ? [{ requestId: e.data.requestId, leaseId: e.data.leaseId, personaId: e.data.personaId }] : [],
  );
}
