import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquirePersona,
  cancelPersonaRequest,
  ErrorCodes,
  getPersonaRequest,
  listPersonas,
  PERSONA_REGISTRY_STREAM,
  personaPoolExhausted,
  registerPersona,
  releasePersona,
  setMaxConcurrentAgents,
  setPoolMembership,
  updatePersona,
  type EventData,
} from '@headspace/contracts';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { AppModule } from '../app.module';
import { configSchema, SERVICE } from '../config';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { PersonaBoardProjection } from './persona-board.projection';
import { DEFAULT_PERSONAS_FILE } from './personas-config';

let tm: TeamManagerHarness;
let notifications: Subscription;
const dir = mkdtempSync(join(tmpdir(), 'hs-personas-'));
const notified: Array<EventData<typeof personaPoolExhausted>> = [];

beforeAll(async () => {
  tm = await startTeamManager('personas');
  // The operator notification travels as an event on JetStream (via the relay): listen where an operator UI would.
  notifications = tm.nc.subscribe(personaPoolExhausted.subject, {
    callback: (_err, msg) => {
      notified.push((msg.json() as { data: EventData<typeof personaPoolExhausted> }).data);
    },
  });
  await tm.nc.flush();
});
afterAll(async () => {
  notifications?.unsubscribe();
  await tm?.close();
  rmSync(dir, { recursive: true, force: true });
});

const registryEvents = async () =>
  Number((await tm.db.pool.query(`SELECT count(*) FROM team_manager.events WHERE stream_id = $1`, [PERSONA_REGISTRY_STREAM])).rows[0].count);

/** Ends every lease and queued request a test left, so the next starts from a free registry. */
async function settle(requests: Array<{ requestId: string }>) {
  for (const r of requests) await tm.send(cancelPersonaRequest, { requestId: r.requestId });
  for (;;) {
    const board = await waitFor(() => caughtUpBoard(), { message: 'persona board caught up' });
    const active = board.personas.filter((p) => p.leaseId);
    if (active.length === 0) return;
    for (const p of active) await tm.send(releasePersona, { leaseId: p.leaseId! }).catch(() => undefined);
  }
}

/** The instance whose persona-board processor holds the lease (only it makes progress). */
const boardProjection = () => {
  const projections = tm.apps.map((app) => app.get(PersonaBoardProjection));
  return projections.find((p) => p.runner.isLeaseHolder) ?? projections[0];
};

async function caughtUpBoard(pool?: string) {
  await boardProjection().runner.waitUntilCaughtUp();
  return tm.send(listPersonas, pool ? { pool } : {});
}

describe('personas and pools', () => {
  it('ships the 8 personas of seed §5.2 with their pools of §5.4 and a limit of 3 concurrent agents', async () => {
    const board = await caughtUpBoard();
    expect(board.maxConcurrentAgents).toBe(3);
    expect(board.activeAgents).toBe(0);
    expect(board.personas.map((p) => [p.personaId, p.name, p.roleType, p.mode, p.status])).toEqual([
      ['con', 'Con', 'execution', 'execution', 'available'],
      ['al', 'Al', 'execution', 'execution', 'available'],
      ['may', 'May', 'execution', 'execution', 'available'],
      ['gavin', 'Gavin', 'pm', 'execution', 'available'],
      ['robbo', 'Robbo', 'workshop', 'workshop', 'available'],
      ['verner', 'Verner', 'qa', 'execution', 'available'],
      ['leon', 'Leon', 'ops', 'execution', 'available'],
      ['mark', 'Mark', 'execution', 'execution', 'available'],
    ]);
    expect(board.pools).toEqual([
      { pool: 'workshop', personas: ['robbo'] },
      { pool: 'architecture', personas: ['robbo'] },
      { pool: 'review', personas: ['robbo'] },
      { pool: 'pm', personas: ['gavin'] },
      { pool: 'backend', personas: ['con', 'may', 'mark'] },
      { pool: 'frontend', personas: ['al', 'mark'] },
      { pool: 'database', personas: ['may', 'con'] },
      { pool: 'integration', personas: ['mark'] },
      { pool: 'qa', personas: ['verner'] },
      { pool: 'ops', personas: ['leon'] },
    ]);
    expect(board.personas.find((p) => p.personaId === 'con')?.pools).toEqual(['backend', 'database']);
  });

  it('selection: the first free persona of the task pool in pool order; with affinity, the persona that worked on the task before', async () => {
    const first = await tm.send(acquirePersona, { pool: 'backend', taskId: 'task-1' });
    expect(first).toMatchObject({ status: 'granted', personaId: 'con' });
    const affine = await tm.send(acquirePersona, { pool: 'backend', taskId: 'task-2', affinityPersonaId: 'mark' });
    expect(affine).toMatchObject({ status: 'granted', personaId: 'mark' });
    const busyAffinity = await tm.send(acquirePersona, { pool: 'backend', taskId: 'task-3', affinityPersonaId: 'con' });
    expect(busyAffinity).toMatchObject({ status: 'granted', personaId: 'may' });
    const board = await caughtUpBoard('backend');
    expect(board.personas.map((p) => [p.personaId, p.status, p.taskId])).toEqual([
      ['con', 'active', 'task-1'],
      ['may', 'active', 'task-3'],
      ['mark', 'active', 'task-2'],
    ]);
    await settle([]);
  });

  it('a persona is active in at most one agent: of 12 concurrent acquires over two instances on a one-persona pool exactly one wins, the rest queue in order', async () => {
    await tm.send(registerPersona, { personaId: 'solo', name: 'Solo', roleType: 'execution' });
    await tm.send(setPoolMembership, { pool: 'solo-pool', personas: ['solo'] });
    await tm.send(setMaxConcurrentAgents, { maxConcurrentAgents: 50 });
    if (tm.apps.length < 2) await tm.addInstance();

    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => tm.send(acquirePersona, { pool: 'solo-pool', taskId: `race-${i}` })));
    const winners = results.filter((r) => r.status === 'granted');
    const queued = results.filter((r) => r.status === 'queued');
    expect(winners).toHaveLength(1);
    expect(winners[0].personaId).toBe('solo');
    expect(queued).toHaveLength(11);
    expect(queued.map((r) => r.position).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));

    // The next in line gets the persona when the winner releases it, and only that one.
    const next = queued.find((r) => r.position === 1)!;
    const released = await tm.send(releasePersona, { leaseId: winners[0].leaseId! });
    expect(released).toMatchObject({ personaId: 'solo', granted: [{ requestId: next.requestId, personaId: 'solo' }] });
    const board = await caughtUpBoard('solo-pool');
    expect(board.personas).toEqual([expect.objectContaining({ personaId: 'solo', status: 'active', leaseId: released.granted[0].leaseId })]);
    expect(board.queue).toHaveLength(10);

    await settle(queued.filter((r) => r !== next));
    await tm.send(setMaxConcurrentAgents, { maxConcurrentAgents: 3 });
  });

  it('pool exhaustion: the request queues, the operator is notified, and it is granted FIFO when a persona frees up', async () => {
    const al = await tm.send(acquirePersona, { pool: 'frontend', taskId: 'ui-1' });
    const mark = await tm.send(acquirePersona, { pool: 'frontend', taskId: 'ui-2' });
    expect([al.personaId, mark.personaId]).toEqual(['al', 'mark']);
    await tm.send(setMaxConcurrentAgents, { maxConcurrentAgents: 10 });

    const waiting1 = await tm.send(acquirePersona, { pool: 'frontend', taskId: 'ui-3' });
    const waiting2 = await tm.send(acquirePersona, { pool: 'frontend', taskId: 'ui-4' });
    expect(waiting1).toMatchObject({ status: 'queued', position: 1 });
    expect(waiting2).toMatchObject({ status: 'queued', position: 2 });
    const notice = await waitFor(() => notified.find((n) => n.requestId === waiting2.requestId), { message: 'operator notified' });
    expect(notice).toMatchObject({ pool: 'frontend', reason: 'pool-exhausted', activeAgents: 2, queueLength: 2 });
    expect(notified.some((n) => n.requestId === waiting1.requestId)).toBe(true);

    await tm.send(releasePersona, { leaseId: mark.leaseId! });
    const granted1 = await waitFor(async () => {
      const r = await tm.send(getPersonaRequest, { requestId: waiting1.requestId });
      return r.status === 'granted' && r;
    });
    expect(granted1.personaId).toBe('mark');
    expect(await tm.send(getPersonaRequest, { requestId: waiting2.requestId })).toMatchObject({ status: 'queued' });

    const releasedAl = await tm.send(releasePersona, { leaseId: al.leaseId! });
    expect(releasedAl.granted).toEqual([expect.objectContaining({ requestId: waiting2.requestId, personaId: 'al' })]);
    await settle([]);
    await tm.send(setMaxConcurrentAgents, { maxConcurrentAgents: 3 });
  });

  it('max concurrent agents: at the limit a request queues although its pool has a free persona, and is granted when an agent ends', async () => {
    const leases = [];
    for (const taskId of ['b-1', 'b-2', 'b-3']) leases.push(await tm.send(acquirePersona, { pool: 'backend', taskId }));
    expect(leases.map((l) => l.personaId)).toEqual(['con', 'may', 'mark']);
    const waiting = await tm.send(acquirePersona, { pool: 'qa', taskId: 'qa-1' });
    expect(waiting).toMatchObject({ status: 'queued', position: 1 });
    const notice = await waitFor(() => notified.find((n) => n.requestId === waiting.requestId), { message: 'operator notified' });
    expect(notice).toMatchObject({ pool: 'qa', reason: 'max-concurrency', activeAgents: 3, maxConcurrentAgents: 3 });

    const released = await tm.send(releasePersona, { leaseId: leases[1].leaseId! });
    expect(released.granted).toEqual([expect.objectContaining({ requestId: waiting.requestId, personaId: 'verner' })]);

    // Raising the limit grants the queue at once.
    const more = await tm.send(acquirePersona, { pool: 'database', taskId: 'db-1' });
    expect(more.status).toBe('queued');
    const raised = await tm.send(setMaxConcurrentAgents, { maxConcurrentAgents: 4 });
    expect(raised.granted).toEqual([expect.objectContaining({ requestId: more.requestId, personaId: 'may' })]);
    await settle([]);
    await tm.send(setMaxConcurrentAgents, { maxConcurrentAgents: 3 });
  });

  it('personas and pool membership change through commands; a duplicate persona is refused', async () => {
    const registered = await tm.send(registerPersona, { personaId: 'nova', name: 'Nova', description: 'Data engineer', roleType: 'execution', pools: ['data'] });
    expect(registered.persona).toEqual({ personaId: 'nova', name: 'Nova', description: 'Data engineer', roleType: 'execution', mode: 'execution', pools: ['data'] });
    expect((await tm.sendError(registerPersona, { personaId: 'nova', name: 'Again' })).code).toBe(ErrorCodes.personaAlreadyExists);
    const updated = await tm.send(updatePersona, { personaId: 'nova', description: 'Data and ML engineer', mode: 'workshop' });
    expect(updated.persona).toMatchObject({ name: 'Nova', description: 'Data and ML engineer', mode: 'workshop' });
    await tm.send(setPoolMembership, { pool: 'data', personas: ['nova', 'may'] });

    const lease = await tm.send(acquirePersona, { pool: 'data' });
    expect(lease.personaId).toBe('nova');
    const board = await caughtUpBoard('data');
    expect(board.pools).toEqual([{ pool: 'data', personas: ['nova', 'may'] }]);
    expect(board.personas.map((p) => [p.personaId, p.description, p.status])).toEqual([
      ['may', expect.any(String), 'available'],
      ['nova', 'Data and ML engineer', 'active'],
    ]);
    await settle([]);
  });

  it('a retried acquire (same command id) answers with its first result and appends nothing', async () => {
    const commandId = randomUUID();
    const first = await tm.send(acquirePersona, { pool: 'ops' }, { commandId });
    const before = await registryEvents();
    const again = await tm.send(acquirePersona, { pool: 'ops' }, { commandId });
    expect(again).toMatchObject({ requestId: first.requestId, status: 'granted', leaseId: first.leaseId, personaId: 'leon' });
    expect(await registryEvents()).toBe(before);
    await settle([]);
  });

  it('bad input on every persona command is refused with the field named and nothing appended', async () => {
    const before = await registryEvents();
    const cases: Array<[Parameters<typeof tm.sendError>[0], unknown, string, string]> = [
      [registerPersona, { name: 'No id' }, ErrorCodes.validationFailed, 'personaId'],
      [registerPersona, { personaId: 'x1', name: 42 }, ErrorCodes.validationFailed, 'name'],
      [registerPersona, { personaId: 'x1', name: 'X', description: 'd'.repeat(2_001) }, ErrorCodes.validationFailed, 'description'],
      [registerPersona, { personaId: 'x1', name: 'X', roleType: 'wizard' }, ErrorCodes.validationFailed, 'roleType'],
      [updatePersona, { name: 'X' }, ErrorCodes.validationFailed, 'personaId'],
      [updatePersona, { personaId: 'ghost', name: 'X' }, ErrorCodes.personaNotFound, 'personaId'],
      [updatePersona, { personaId: 'con', description: 'd'.repeat(2_001) }, ErrorCodes.validationFailed, 'description'],
      [setPoolMembership, { personas: ['con'] }, ErrorCodes.validationFailed, 'pool'],
      [setPoolMembership, { pool: 'backend', personas: 'con' }, ErrorCodes.validationFailed, 'personas'],
      [setPoolMembership, { pool: 'backend', personas: ['con', 'ghost'] }, ErrorCodes.personaNotFound, 'personas.1'],
      [setMaxConcurrentAgents, {}, ErrorCodes.validationFailed, 'maxConcurrentAgents'],
      [setMaxConcurrentAgents, { maxConcurrentAgents: 'three' }, ErrorCodes.validationFailed, 'maxConcurrentAgents'],
      [setMaxConcurrentAgents, { maxConcurrentAgents: 0 }, ErrorCodes.validationFailed, 'maxConcurrentAgents'],
      [acquirePersona, {}, ErrorCodes.validationFailed, 'pool'],
      [acquirePersona, { pool: 7 }, ErrorCodes.validationFailed, 'pool'],
      [acquirePersona, { pool: 'nowhere' }, ErrorCodes.poolNotFound, 'pool'],
      [acquirePersona, { pool: 'backend', affinityPersonaId: 'ghost' }, ErrorCodes.personaNotFound, 'affinityPersonaId'],
      [acquirePersona, { pool: 'backend', taskId: 't'.repeat(201) }, ErrorCodes.validationFailed, 'taskId'],
      [releasePersona, {}, ErrorCodes.validationFailed, 'leaseId'],
      [releasePersona, { leaseId: randomUUID() }, ErrorCodes.personaLeaseNotFound, 'leaseId'],
      [releasePersona, { leaseId: 'l'.repeat(101) }, ErrorCodes.validationFailed, 'leaseId'],
      [cancelPersonaRequest, {}, ErrorCodes.validationFailed, 'requestId'],
      [cancelPersonaRequest, { requestId: randomUUID() }, ErrorCodes.personaRequestNotFound, 'requestId'],
    ];
    for (const [definition, body, code, field] of cases) {
      const error = await tm.sendError(definition, body);
      expect({ subject: definition.name, body, code: error.code, field: error.field }).toEqual({ subject: definition.name, body, code, field });
    }
    expect(await registryEvents()).toBe(before);
  });

  it('the persona board rebuilt from position 0 equals the live board row for row', async () => {
    const waiting = [];
    for (let i = 0; i < 4; i++) waiting.push(await tm.send(acquirePersona, { pool: 'pm', taskId: `plan-${i}` }));
    await tm.send(cancelPersonaRequest, { requestId: waiting[3].requestId });
    const live = await expectRebuiltEqualsLive(boardProjection(), tm.db.pool);
    expect(live.persona_requests.length).toBeGreaterThan(10);
    await settle(waiting.slice(1, 3));
  });

  it('a bad personas file stops the service at start, naming the field', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, readFileSync(DEFAULT_PERSONAS_FILE, 'utf8').replace('role_type: qa', 'role_type: tester'));
    const config = loadConfig(
      configSchema,
      { DATABASE_URL: tm.db.url, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'fatal', HS_NAMESPACE: tm.namespace, HS_PERSONAS_FILE: file },
      SERVICE,
    );
    const app = await createServiceApp(AppModule.forRoot(config), { bufferLogs: false });
    try {
      const failure = await app.init().then(
        () => undefined,
        (error: unknown) => error as { code?: string; field?: string; message: string },
      );
      expect(failure).toMatchObject({ code: 'PERSONA.CONFIG_INVALID', field: 'personas.verner.role_type' });
      expect(failure?.message).toContain(file);
    } finally {
      await app.close().catch(() => undefined);
    }
  });

  it('an instance starting with the same file keeps the changes made by command; a changed file is applied at the next start', async () => {
    await tm.addInstance();
    let board = await caughtUpBoard();
    expect(board.personas.map((p) => p.personaId)).toEqual(expect.arrayContaining(['solo', 'nova']));

    const file = join(dir, 'changed.yaml');
    writeFileSync(file, readFileSync(DEFAULT_PERSONAS_FILE, 'utf8').replace('max_concurrent_agents: 3', 'max_concurrent_agents: 5'));
    await tm.addInstance({ HS_PERSONAS_FILE: file });
    board = await caughtUpBoard();
    expect(board.maxConcurrentAgents).toBe(5);
    expect(board.personas.map((p) => p.personaId)).toEqual(['con', 'al', 'may', 'gavin', 'robbo', 'verner', 'leon', 'mark']);
  });
});
