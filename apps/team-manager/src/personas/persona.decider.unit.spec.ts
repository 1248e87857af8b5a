import { describe, expect, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { leaseIdFor, personaDecider, type PersonaEvent } from './persona.decider';

const now = '2026-11-22T10:00:00.000Z';
const persona = (personaId: string) => ({ personaId, name: personaId.toUpperCase(), description: '', roleType: 'execution' as const, mode: 'execution' as const, pools: [] });
const loaded = (max = 3): PersonaEvent => ({
  type: 'persona.config-loaded',
  data: {
    source: 'test',
    hash: 'h1',
    maxConcurrentAgents: max,
    personas: [persona('con'), persona('may'), persona('mark'), persona('al')],
    pools: [
      { pool: 'backend', personas: ['con', 'may', 'mark'] },
      { pool: 'frontend', personas: ['al', 'mark'] },
      { pool: 'empty', personas: [] },
    ],
    loadedAt: now,
  },
});
const granted = (requestId: string, personaId: string, pool = 'backend', extra: Partial<{ affinity: boolean; fromQueue: boolean }> = {}): PersonaEvent => ({
  type: 'persona.granted',
  data: { requestId, leaseId: leaseIdFor(requestId), personaId, pool, affinity: false, fromQueue: false, grantedAt: now, ...extra },
});
const acquire = (requestId: string, pool = 'backend', affinityPersonaId?: string) =>
  ({ type: 'acquire-persona', requestId, pool, now, ...(affinityPersonaId ? { affinityPersonaId } : {}) }) as const;
const codeIs = (code: string) => (error: unknown) => (error as { code?: string }).code === code;

describe('persona decider', () => {
  it('grants the first free member of the pool in pool order', () => {
    DeciderSpec.for(personaDecider).given([loaded(), granted('r1', 'con')]).when(acquire('r2')).then([granted('r2', 'may')]);
  });

  it('prefers the affinity persona when it is a free member of the pool', () => {
    DeciderSpec.for(personaDecider).given([loaded()]).when(acquire('r1', 'backend', 'mark')).then([granted('r1', 'mark', 'backend', { affinity: true })]);
  });

  it('falls back to pool order when the affinity persona is busy', () => {
    DeciderSpec.for(personaDecider).given([loaded(), granted('r1', 'mark', 'frontend')]).when(acquire('r2', 'backend', 'mark')).then([granted('r2', 'con')]);
  });

  it('queues and notifies the operator when every member of the pool is active', () => {
    DeciderSpec.for(personaDecider)
      .given([loaded(5), granted('r1', 'al', 'frontend'), granted('r2', 'mark', 'frontend')])
      .when(acquire('r3', 'frontend'))
      .then([
        { type: 'persona.request-queued', data: { requestId: 'r3', pool: 'frontend', reason: 'pool-exhausted', position: 1, queuedAt: now } },
        {
          type: 'persona.pool-exhausted',
          data: { requestId: 'r3', pool: 'frontend', reason: 'pool-exhausted', activeAgents: 2, maxConcurrentAgents: 5, queueLength: 1, notifiedAt: now },
        },
      ]);
  });

  it('queues with reason max-concurrency when the agent limit is reached although the pool has free members', () => {
    const events = personaDecider.decide(acquire('r2'), [loaded(1), granted('r1', 'al', 'frontend')].reduce(personaDecider.evolve, personaDecider.initialState()));
    expect(events.map((e) => e.type)).toEqual(['persona.request-queued', 'persona.pool-exhausted']);
    expect(events[0].data).toMatchObject({ reason: 'max-concurrency' });
  });

  it('a release grants the oldest queued request the freed persona can serve', () => {
    const queued = (requestId: string, pool: string, position: number): PersonaEvent => ({
      type: 'persona.request-queued',
      data: { requestId, pool, reason: 'pool-exhausted', position, queuedAt: now },
    });
    DeciderSpec.for(personaDecider)
      .given([loaded(5), granted('r1', 'al', 'frontend'), granted('r2', 'mark', 'frontend'), queued('q1', 'frontend', 1), queued('q2', 'frontend', 2)])
      .when({ type: 'release-persona', leaseId: leaseIdFor('r2'), now })
      .then([
        { type: 'persona.released', data: { leaseId: leaseIdFor('r2'), requestId: 'r2', personaId: 'mark', releasedAt: now } },
        granted('q1', 'mark', 'frontend', { fromQueue: true }),
      ]);
  });

  it('refuses an unknown pool, an unknown affinity persona and an unknown lease', () => {
    DeciderSpec.for(personaDecider).given([loaded()]).when(acquire('r1', 'nope')).thenThrows(codeIs('POOL.NOT_FOUND'));
    DeciderSpec.for(personaDecider).given([loaded()]).when(acquire('r1', 'backend', 'ghost')).thenThrows(codeIs('PERSONA.NOT_FOUND'));
    DeciderSpec.for(personaDecider).given([loaded()]).when({ type: 'release-persona', leaseId: 'x', now }).thenThrows(codeIs('PERSONA.LEASE_NOT_FOUND'));
  });

  it('a config file already applied (same hash) appends nothing', () => {
    const { data } = loaded() as Extract<PersonaEvent, { type: 'persona.config-loaded' }>;
    DeciderSpec.for(personaDecider)
      .given([loaded()])
      .when({ type: 'load-config', source: 'test', hash: 'h1', config: { maxConcurrentAgents: 3, personas: data.personas, pools: data.pools }, now })
      .then([]);
  });

  it('register refuses a duplicate id; pool membership refuses an unknown persona naming its index', () => {
    DeciderSpec.for(personaDecider).given([loaded()]).when({ type: 'register-persona', persona: persona('con'), now }).thenThrows(codeIs('PERSONA.ALREADY_EXISTS'));
    DeciderSpec.for(personaDecider)
      .given([loaded()])
      .when({ type: 'set-pool-membership', pool: 'backend', personas: ['con', 'ghost'], now })
      .thenThrows((e) => (e as { field?: string }).field === 'personas.1');
  });

  it('a new config file is recorded with its hash and grants what its pools and limit free up', () => {
    const queued: PersonaEvent = { type: 'persona.request-queued', data: { requestId: 'q1', pool: 'frontend', reason: 'max-concurrency', position: 1, queuedAt: now } };
    const { data } = loaded(5) as Extract<PersonaEvent, { type: 'persona.config-loaded' }>;
    DeciderSpec.for(personaDecider)
      .given([loaded(1), granted('r1', 'con'), queued])
      .when({ type: 'load-config', source: 'test', hash: 'h2', config: { maxConcurrentAgents: 5, personas: data.personas, pools: data.pools }, now })
      .then([{ type: 'persona.config-loaded', data: { ...data, hash: 'h2' } }, granted('q1', 'al', 'frontend', { fromQueue: true })]);
  });

  it('registers a new persona', () => {
    DeciderSpec.for(personaDecider).given([loaded()]).when({ type: 'register-persona', persona: persona('verner'), now }).then([
      { type: 'persona.registered', data: { persona: persona('verner'), registeredAt: now } },
    ]);
  });

  it('an update changes only the fields it sets, never the id; an unknown persona is refused', () => {
    DeciderSpec.for(personaDecider)
      .given([loaded()])
      .when({ type: 'update-persona', personaId: 'con', patch: { description: 'backend builder', name: undefined }, now })
      .then([{ type: 'persona.updated', data: { persona: { ...persona('con'), description: 'backend builder' }, updatedAt: now } }]);
    DeciderSpec.for(personaDecider).given([loaded()]).when({ type: 'update-persona', personaId: 'ghost', patch: {}, now }).thenThrows(codeIs('PERSONA.NOT_FOUND'));
  });

  it('pool membership keeps each persona once, in order, and its new members serve the queue at once', () => {
    const queued: PersonaEvent = { type: 'persona.request-queued', data: { requestId: 'q1', pool: 'empty', reason: 'pool-exhausted', position: 1, queuedAt: now } };
    DeciderSpec.for(personaDecider)
      .given([loaded(), queued])
      .when({ type: 'set-pool-membership', pool: 'empty', personas: ['may', 'con', 'may'], now })
      .then([{ type: 'persona.pool-membership-set', data: { pool: 'empty', personas: ['may', 'con'], setAt: now } }, granted('q1', 'may', 'empty', { fromQueue: true })]);
  });

  it('a raised agent limit grants the queued requests it makes room for, oldest first', () => {
    const queued = (requestId: string, position: number): PersonaEvent => ({
      type: 'persona.request-queued',
      data: { requestId, pool: 'backend', reason: 'max-concurrency', position, queuedAt: now },
    });
    DeciderSpec.for(personaDecider)
      .given([loaded(1), granted('r1', 'con'), queued('q1', 1), queued('q2', 2)])
      .when({ type: 'set-max-concurrent-agents', maxConcurrentAgents: 2, now })
      .then([{ type: 'persona.max-concurrency-set', data: { maxConcurrentAgents: 2, setAt: now } }, granted('q1', 'may', 'backend', { fromQueue: true })]);
  });

  it('a queued request is cancelled; a granted one decides nothing; an unknown one is refused', () => {
    const queued: PersonaEvent = { type: 'persona.request-queued', data: { requestId: 'q1', pool: 'empty', reason: 'pool-exhausted', position: 1, queuedAt: now } };
    DeciderSpec.for(personaDecider).given([loaded(), queued]).when({ type: 'cancel-persona-request', requestId: 'q1', now }).then([
      { type: 'persona.request-cancelled', data: { requestId: 'q1', pool: 'empty', cancelledAt: now } },
    ]);
    DeciderSpec.for(personaDecider).given([loaded(), granted('r1', 'con')]).when({ type: 'cancel-persona-request', requestId: 'r1', now }).then([]);
    DeciderSpec.for(personaDecider).given([loaded()]).when({ type: 'cancel-persona-request', requestId: 'nope', now }).thenThrows(codeIs('PERSONA.REQUEST_NOT_FOUND'));
  });
});
