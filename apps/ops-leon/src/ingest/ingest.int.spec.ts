import {
  createIngestKey,
  createOpsProject,
  getGroup,
  ingestException,
  listGroups,
  revokeIngestKey,
  transitionGroup,
} from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { report, SCHEMA, startOpsLeon, type OpsLeonHarness } from '../testing/ops-leon-harness';

const receivedAt = (second = 0) => new Date(Date.UTC(2025, 2, 1, 10, 0, second)).toISOString();

/** Events recorded for a project (all shards): what ingest wrote, whatever the projection says. */
const recorded = async (h: OpsLeonHarness, projectId: string) =>
  Number((await h.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.events WHERE type = 'exception.received' AND stream_id LIKE $1`, [`exception-${projectId}.%`])).rows[0].n);

async function projectWithKey(h: OpsLeonHarness, project: string) {
  const { projectId } = await h.send(createOpsProject, { project, repository: `/srv/${project}` });
  const key = await h.send(createIngestKey, { project });
  return { projectId, key };
}

describe('ingest on real PostgreSQL and NATS', () => {
  let h: OpsLeonHarness;
  beforeAll(async () => (h = await startOpsLeon('olingest', { HS_OPS_SAMPLE_EVENTS: '20' })));
  afterAll(() => h?.close());

  it('records an event once: a retry with the same event id is answered alike and counts nothing', async () => {
    const { key } = await projectWithKey(h, 'shop');
    const event = report();
    const first = await h.send(ingestException, { project: 'shop', publicKey: key.publicKey, report: event, receivedAt: receivedAt() });
    const again = await h.send(ingestException, { project: 'shop', publicKey: key.publicKey, report: event, receivedAt: receivedAt(1) });
    expect(first).toEqual({ eventId: event.eventId, groupId: expect.stringMatching(/^grp_/), accepted: true });
    expect(again).toEqual({ ...first, accepted: false });
    await h.caughtUp();
    expect(await h.send(getGroup, { groupId: first.groupId })).toMatchObject({ project: 'shop', state: 'NEW', count: 1, title: 'order <num> not found', culprit: 'src/orders.js in loadOrder' });
  });

  it('takes the numeric DSN id as the project and keeps frames parsed from raw stack text', async () => {
    const { projectId, key } = await projectWithKey(h, 'dsn-app');
    const { groupId } = await h.send(ingestException, { project: projectId, publicKey: key.publicKey, report: report(), receivedAt: receivedAt() });
    await h.caughtUp();
    const group = await h.send(getGroup, { groupId });
    expect(group.samples[0].frames.map((f) => f.function)).toEqual(['handle', 'loadOrder']);
  });

  it('refuses a wrong key (OPS.INGEST_KEY_INVALID), an unknown project (OPS.PROJECT_NOT_FOUND) and a revoked key, recording nothing', async () => {
    const { projectId, key } = await projectWithKey(h, 'keyed');
    const other = await projectWithKey(h, 'other');
    const send = (project: string, publicKey: string) => h.sendError(ingestException, { project, publicKey, report: report(), receivedAt: receivedAt() });
    expect(await send('keyed', 'f'.repeat(32))).toMatchObject({ code: 'OPS.INGEST_KEY_INVALID', field: 'publicKey' });
    expect(await send('keyed', other.key.publicKey)).toMatchObject({ code: 'OPS.INGEST_KEY_INVALID' });
    expect(await send('nowhere', key.publicKey)).toMatchObject({ code: 'OPS.PROJECT_NOT_FOUND' });
    expect(await send('999999', key.publicKey)).toMatchObject({ code: 'OPS.PROJECT_NOT_FOUND' });
    await h.send(revokeIngestKey, { project: 'keyed', keyId: key.keyId });
    expect(await send('keyed', key.publicKey)).toMatchObject({ code: 'OPS.INGEST_KEY_INVALID' });
    expect(await recorded(h, projectId)).toBe(0);
    // The key is stored only as its hash.
    const { rows } = await h.db.pool.query(`SELECT data::text AS d FROM ${SCHEMA}.events WHERE data::text LIKE $1`, [`%${key.publicKey}%`]);
    expect(rows).toEqual([]);
  });

  it('a storm of 5,000 events of one fingerprint, sent 50 at a time with retries, leaves one group with the exact count and 20 samples', async () => {
    const { projectId, key } = await projectWithKey(h, 'storm');
    const events = Array.from({ length: 5_000 }, (_, i) => report({ message: `order ${i} not found`, stack: `Error\n    at loadOrder (/srv/v${i % 7}/src/orders.js:${10 + (i % 5)}:3)` }));
    // Every 25th event is sent twice (a client retry), concurrently with the rest.
    const sends = [...events, ...events.filter((_, i) => i % 25 === 0)];
    const answers: Array<{ groupId: string; accepted: boolean }> = [];
    for (let i = 0; i < sends.length; i += 50) {
      answers.push(...(await Promise.all(sends.slice(i, i + 50).map((e) => h.send(ingestException, { project: 'storm', publicKey: key.publicKey, report: e, receivedAt: receivedAt() })))));
    }
    expect(new Set(answers.map((a) => a.groupId)).size).toBe(1);
    expect(answers.filter((a) => a.accepted)).toHaveLength(5_000);
    expect(await recorded(h, projectId)).toBe(5_000);
    await h.caughtUp();
    const { items } = await h.send(listGroups, { project: 'storm' });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ count: 5_000, state: 'NEW' });
    const group = await h.send(getGroup, { groupId: items[0].groupId });
    expect(group.samples).toHaveLength(20);
    expect(group.transitions.map((t) => t.type)).toEqual(['group.opened']);
  }, 240_000);

  it('answers each of many concurrent requests on its own: a wrong key refused, copies of one event id counted once, the rest recorded', async () => {
    const { projectId, key } = await projectWithKey(h, 'crowd');
    const copied = report();
    const sends = [
      ...Array.from({ length: 20 }, () => ({ publicKey: key.publicKey, report: report() })),
      ...Array.from({ length: 5 }, () => ({ publicKey: key.publicKey, report: copied })),
      { publicKey: 'f'.repeat(32), report: report() },
    ];
    const outcomes = await Promise.allSettled(sends.map((s) => h.send(ingestException, { project: 'crowd', ...s, receivedAt: receivedAt() })));
    const answers = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.accepted : (o.reason as { code: string }).code));
    expect(answers.slice(0, 20)).toEqual(Array(20).fill(true));
    expect(answers.slice(20, 25).filter((accepted) => accepted === true)).toHaveLength(1);
    expect(answers.slice(20, 25).filter((accepted) => accepted === false)).toHaveLength(4);
    expect(answers[25]).toBe('OPS.INGEST_KEY_INVALID');
    expect(await recorded(h, projectId)).toBe(21);
    await h.caughtUp();
    expect((await h.send(listGroups, { project: 'crowd' })).items[0]).toMatchObject({ count: 21 });
  });

  it('reopens a resolved group as REGRESSED on an event of a new release, not on one of a release seen before the fix', async () => {
    const { key } = await projectWithKey(h, 'regress');
    const send = (release: string, second: number) =>
      h.send(ingestException, { project: 'regress', publicKey: key.publicKey, report: report({ type: 'KeyError', release }), receivedAt: receivedAt(second) });
    const { groupId } = await send('1.0.0', 0);
    await h.caughtUp();
    expect(await h.send(transitionGroup, { groupId, action: 'resolve', reason: 'fixed in 1.1.0' })).toMatchObject({ state: 'RESOLVED' });
    await send('1.0.0', 10);
    await h.caughtUp();
    expect(await h.send(getGroup, { groupId })).toMatchObject({ state: 'RESOLVED', count: 2 });
    await send('1.1.0', 20);
    await h.caughtUp();
    const group = await h.send(getGroup, { groupId });
    expect(group).toMatchObject({ state: 'REGRESSED', count: 3, releases: ['1.0.0', '1.1.0'] });
    expect(group.transitions.map((t) => [t.type, t.from, t.to])).toEqual([
      ['group.opened', null, 'NEW'],
      ['group.resolved', 'NEW', 'RESOLVED'],
      ['group.regressed', 'RESOLVED', 'REGRESSED'],
    ]);
  });

  it('refuses an operator move the lifecycle does not allow with OPS.ILLEGAL_TRANSITION naming from and to', async () => {
    const { key } = await projectWithKey(h, 'moves');
    const { groupId } = await h.send(ingestException, { project: 'moves', publicKey: key.publicKey, report: report(), receivedAt: receivedAt() });
    expect(await h.sendError(transitionGroup, { groupId, action: 'reopen' })).toMatchObject({ code: 'OPS.ILLEGAL_TRANSITION', details: { from: 'NEW', to: 'NEW' } });
    expect(await h.sendError(transitionGroup, { groupId, action: 'dismiss' })).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED' });
    expect(await h.send(transitionGroup, { groupId, action: 'dismiss', reason: 'a bot' })).toMatchObject({ state: 'DISMISSED' });
  });
});

describe('ingest limits', () => {
  let h: OpsLeonHarness;
  beforeAll(
    async () =>
      (h = await startOpsLeon('ollimits', { HS_OPS_RATE_LIMIT_PER_MIN: '30', HS_OPS_SPIKE_WINDOW_SEC: '60', HS_OPS_SPIKE_BASELINE_WINDOWS: '1', HS_OPS_SPIKE_FACTOR: '3', HS_OPS_SPIKE_MIN_EVENTS: '5' })),
  );
  afterAll(() => h?.close());

  it('answers OPS.RATE_LIMITED over the per-minute limit and records nothing of the refused events', async () => {
    const { projectId, key } = await projectWithKey(h, 'chatty');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, () => h.send(ingestException, { project: 'chatty', publicKey: key.publicKey, report: report(), receivedAt: receivedAt() })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(30);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(Array(10).fill('OPS.RATE_LIMITED'));
    expect(await recorded(h, projectId)).toBe(30);
  });

  it('records a spike when a group’s events in a window reach factor × its baseline, once per window', async () => {
    const { key } = await projectWithKey(h, 'spiky');
    const at = (minute: number, second: number) => new Date(Date.UTC(2025, 2, 1, 11, minute, second)).toISOString();
    const send = (minute: number, second: number) =>
      h.send(ingestException, { project: 'spiky', publicKey: key.publicKey, report: report({ type: 'Timeout' }), receivedAt: at(minute, second) });
    // Baseline: 2 events in minute 0; minute 1 spikes at 6 (3 × 2), and only once.
    const { groupId } = await send(0, 1);
    await send(0, 2);
    for (let i = 0; i < 10; i++) await send(1, i);
    await h.caughtUp();
    const group = await h.send(getGroup, { groupId });
    expect(group.spikedAt).toBe(at(1, 5));
    expect(group.transitions.filter((t) => t.type === 'group.spiked').map((t) => t.details)).toEqual([{ count: 6, baseline: 2, factor: 3, windowSeconds: 60 }]);
  });
});
