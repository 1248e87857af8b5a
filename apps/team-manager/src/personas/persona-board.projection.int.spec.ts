import { randomUUID } from 'node:crypto';
import { PERSONA_REGISTRY_STREAM, type Persona } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { teamManagerProjectionSpec } from '../testing/projection-store';
import { PersonaBoardProjection } from './persona-board.projection';

let given: Awaited<ReturnType<typeof teamManagerProjectionSpec<PersonaBoardProjection>>>;
beforeAll(async () => (given = await teamManagerProjectionSpec('personaboard', (store) => new PersonaBoardProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

// The roster, pools and setting are the registry's one board: each spec starts from a config load,
// which replaces all three. Requests are keyed by id, so specs keep to ids of their own.
const registry = (...events: NewEvent[]) => inStream(PERSONA_REGISTRY_STREAM, ...events);
const AT = '2025-01-01T10:00:00.000Z';

const persona = (personaId: string, pools: string[], over: Partial<Persona> = {}): Persona => ({
  personaId,
  name: personaId.toUpperCase(),
  description: `${personaId} builds things`,
  roleType: 'execution',
  mode: 'execution',
  pools,
  ...over,
});
const configLoaded = (personas: Persona[], pools: Array<{ pool: string; personas: string[] }>, maxConcurrentAgents = 3): NewEvent => ({
  type: 'persona.config-loaded',
  data: { source: 'personas.yaml', hash: 'h1', maxConcurrentAgents, personas, pools, loadedAt: AT },
});
const registered = (p: Persona): NewEvent => ({ type: 'persona.registered', data: { persona: p, registeredAt: AT } });
const updated = (p: Persona): NewEvent => ({ type: 'persona.updated', data: { persona: p, updatedAt: AT } });
const poolSet = (pool: string, personas: string[]): NewEvent => ({ type: 'persona.pool-membership-set', data: { pool, personas, setAt: AT } });
const maxSet = (max: number): NewEvent => ({ type: 'persona.max-concurrency-set', data: { maxConcurrentAgents: max, setAt: AT } });

/** The whole board in one row: the roster and pools in their order, and the concurrency limit. */
const board = {
  sql: `SELECT (SELECT coalesce(jsonb_agg(to_jsonb(r) ORDER BY position), '[]') FROM team_manager.persona_roster r) AS roster,
               (SELECT coalesce(jsonb_agg(to_jsonb(p) ORDER BY position), '[]') FROM team_manager.persona_pools p) AS pools,
               (SELECT max_concurrent_agents FROM team_manager.persona_settings) AS max_concurrent_agents`,
};
const rosterRow = (p: Persona, position: number) => ({
  persona_id: p.personaId,
  position,
  name: p.name,
  description: p.description,
  role_type: p.roleType,
  mode: p.mode,
  pools: p.pools,
  runtime: p.runtime ?? null,
});
const [CON, AL] = [persona('con', ['backend']), persona('al', ['backend', 'frontend'])];
const BASE = configLoaded([CON, AL], [{ pool: 'backend', personas: ['con', 'al'] }, { pool: 'frontend', personas: ['al'] }]);
const BASE_POOLS = [
  { pool: 'backend', position: 1, personas: ['con', 'al'] },
  { pool: 'frontend', position: 2, personas: ['al'] },
];

describe('persona-board projection: roster, pools and limit', () => {
  it('a config load replaces the roster, the pools and the concurrency limit with its own, in its order', async () => {
    await spec()
      .given(registry(registered(persona('zed', ['ops'])), poolSet('ops', ['zed']), maxSet(9)))
      .when(registry(BASE))
      .then(board, [{ roster: [rosterRow(CON, 1), rosterRow(AL, 2)], pools: BASE_POOLS, max_concurrent_agents: 3 }]);
  });

  it('a registered persona joins the end of the roster; an update changes it in place', async () => {
    const may = persona('may', ['frontend']);
    await spec()
      .given(registry(BASE))
      .when(registry(registered(may), updated({ ...CON, name: 'Connor', roleType: 'qa', pools: ['qa'], runtime: 'claude-code' })))
      .then(board, [{ roster: [rosterRow({ ...CON, name: 'Connor', roleType: 'qa', pools: ['qa'], runtime: 'claude-code' }, 1), rosterRow(AL, 2), rosterRow(may, 3)] }]);
  });

  it('setting a pool replaces its members in their new order; a new pool goes last', async () => {
    await spec()
      .given(registry(BASE))
      .when(registry(poolSet('backend', ['al', 'con']), poolSet('ops', ['con'])))
      .then(board, [
        {
          pools: [
            { pool: 'backend', position: 1, personas: ['al', 'con'] },
            { pool: 'frontend', position: 2, personas: ['al'] },
            { pool: 'ops', position: 3, personas: ['con'] },
          ],
        },
      ]);
  });

  it('setting the concurrency limit changes only the limit', async () => {
    await spec()
      .given(registry(BASE))
      .when(registry(maxSet(7)))
      .then(board, [{ roster: [rosterRow(CON, 1), rosterRow(AL, 2)], pools: BASE_POOLS, max_concurrent_agents: 7 }]);
  });
});

const queued = (requestId: string, pool: string, taskId: string): NewEvent => ({
  type: 'persona.request-queued',
  data: { requestId, pool, taskId, reason: 'pool-exhausted', position: 1, queuedAt: '2025-01-01T10:01:00.000Z' },
});
const exhausted = (requestId: string, pool: string): NewEvent => ({
  type: 'persona.pool-exhausted',
  data: { requestId, pool, reason: 'pool-exhausted', activeAgents: 2, maxConcurrentAgents: 3, queueLength: 1, notifiedAt: '2025-01-01T10:01:00.000Z' },
});
const granted = (requestId: string, personaId: string, pool: string, fromQueue: boolean, extra: Record<string, string> = {}): NewEvent => ({
  type: 'persona.granted',
  data: { requestId, leaseId: `lease-${requestId}`, personaId, pool, affinity: false, fromQueue, grantedAt: '2025-01-01T10:02:00.000Z', ...extra },
});
const released = (requestId: string, personaId: string): NewEvent => ({
  type: 'persona.released',
  data: { leaseId: `lease-${requestId}`, requestId, personaId, releasedAt: '2025-01-01T10:03:00.000Z' },
});
const cancelled = (requestId: string, pool: string): NewEvent => ({ type: 'persona.request-cancelled', data: { requestId, pool, cancelledAt: '2025-01-01T10:04:00.000Z' } });

const requestsLike = (prefix: string) => ({ sql: `SELECT * FROM team_manager.persona_requests WHERE request_id LIKE $1 || '%' ORDER BY seq`, params: [prefix] });
const newPrefix = () => `r${randomUUID().slice(0, 8)}-`;

describe('persona-board projection: requests', () => {
  it('a request that cannot be served waits in the queue, in log order; the exhausted-pool notice changes nothing', async () => {
    const r = newPrefix();
    await spec()
      .when(registry(queued(`${r}b`, 'backend', 'T-1'), exhausted(`${r}b`, 'backend'), queued(`${r}a`, 'frontend', 'T-2')))
      .then(requestsLike(r), [
        { request_id: `${r}b`, pool: 'backend', task_id: 'T-1', agent_id: null, status: 'queued', persona_id: null, lease_id: null, updated_at: new Date('2025-01-01T10:01:00.000Z') },
        { request_id: `${r}a`, pool: 'frontend', task_id: 'T-2', agent_id: null, status: 'queued', persona_id: null, lease_id: null },
      ]);
  });

  it('a grant from the queue names the persona and lease and keeps the queue place; a direct grant is a new granted request', async () => {
    const r = newPrefix();
    await spec()
      .given(registry(queued(`${r}1`, 'backend', 'T-1')))
      .when(registry(granted(`${r}1`, 'con', 'backend', true, { taskId: 'T-1' }), granted(`${r}2`, 'al', 'frontend', false, { agentId: 'agent-7' })))
      .then(requestsLike(r), [
        { request_id: `${r}1`, pool: 'backend', task_id: 'T-1', status: 'granted', persona_id: 'con', lease_id: `lease-${r}1`, updated_at: new Date('2025-01-01T10:02:00.000Z') },
        { request_id: `${r}2`, pool: 'frontend', task_id: null, agent_id: 'agent-7', status: 'granted', persona_id: 'al', lease_id: `lease-${r}2` },
      ]);
  });

  it('a released lease and a cancelled request close their requests', async () => {
    const r = newPrefix();
    await spec()
      .given(registry(granted(`${r}1`, 'con', 'backend', false), queued(`${r}2`, 'backend', 'T-2')))
      .when(registry(released(`${r}1`, 'con'), cancelled(`${r}2`, 'backend')))
      .then(requestsLike(r), [
        { request_id: `${r}1`, status: 'released', persona_id: 'con', updated_at: new Date('2025-01-01T10:03:00.000Z') },
        { request_id: `${r}2`, status: 'cancelled', persona_id: null, updated_at: new Date('2025-01-01T10:04:00.000Z') },
      ]);
  });
});
