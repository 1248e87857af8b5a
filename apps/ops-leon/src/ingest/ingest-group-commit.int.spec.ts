import { randomBytes } from 'node:crypto';
import { EventRegistry, opsLeonEvents } from '@headspace/contracts';
import { EventStore, migrate, type OnceAppend } from '@headspace/event-store';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../testing/ops-leon-harness';
import { IngestGroupCommit } from './ingest-group-commit';

let db: TestDatabase;
let receipts: IngestGroupCommit;

/** One ingest receipt of a fresh event id (or the given one) on one of two shards of a project. */
function receipt(projectId: string, eventId = randomBytes(16).toString('hex'), over: Record<string, unknown> = {}): OnceAppend {
  const report = { eventId, type: 'OrderNotFound', message: 'order <num> not found', level: 'error', frames: [], tags: {}, source: 'http' };
  const data = { project: 'shop', projectId, groupId: 'grp_1', fingerprint: 'f', receivedAt: '2025-03-01T10:00:00.000Z', report, ...over };
  return { streamId: `exception-${projectId}.${parseInt(eventId.slice(0, 2), 16) % 2}`, events: [{ type: 'exception.received', data }], commandId: `ingest:${projectId}:${eventId}` };
}

const recorded = async (projectId: string) =>
  Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.events WHERE stream_id LIKE $1`, [`exception-${projectId}.%`])).rows[0].n);

/** Starts a receipt so that the next ones submitted wait for it and then go out together, in one batch. */
const occupy = (projectId: string) => receipts.append(receipt(projectId));

beforeAll(async () => {
  db = await createTestDatabase('olgroupcommit');
  await migrate(db.pool, { schema: SCHEMA });
  receipts = new IngestGroupCommit(new EventStore({ pool: db.pool, schema: SCHEMA, registry: new EventRegistry(opsLeonEvents) }));
});
afterAll(() => db?.drop());

describe('ingest group commit', () => {
  it('appends the receipts queued behind a running statement together, in one transaction, over several shard streams', async () => {
    const projectId = '101';
    const first = occupy(projectId);
    const together = await Promise.all(Array.from({ length: 20 }, () => receipts.append(receipt(projectId))));
    await first;
    expect(together.every((r) => !r.replayed)).toBe(true);
    expect(new Set(together.map((r) => r.lastTransactionId)).size).toBe(1);
    expect(new Set(together.map((r) => r.streamId)).size).toBe(2);
    expect(await recorded(projectId)).toBe(21);
  });

  it('refuses a receipt its contract refuses and records the others of its batch', async () => {
    const projectId = '102';
    const first = occupy(projectId);
    const sent = [receipt(projectId), receipt(projectId, undefined, { receivedAt: 'yesterday' }), receipt(projectId), receipt(projectId)];
    const outcomes = await Promise.allSettled(sent.map((r) => receipts.append(r)));
    await first;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED' });
    expect(await recorded(projectId)).toBe(4);
  });

  it('counts concurrent retries of one event id in one batch once, and a later retry not at all', async () => {
    const projectId = '103';
    const eventId = randomBytes(16).toString('hex');
    const first = occupy(projectId);
    const retries = await Promise.all([receipt(projectId, eventId), receipt(projectId), receipt(projectId, eventId), receipt(projectId, eventId)].map((r) => receipts.append(r)));
    await first;
    expect(retries.map((r) => r.replayed)).toEqual([false, false, true, true]);
    expect(retries[2].eventIds).toEqual(retries[0].eventIds);
    expect((await receipts.append(receipt(projectId, eventId))).replayed).toBe(true);
    expect(await recorded(projectId)).toBe(3);
  });
});
