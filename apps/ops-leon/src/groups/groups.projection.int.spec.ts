import { randomBytes } from 'node:crypto';
import { exceptionGroupStreamId, exceptionIngestStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { opsLeonProjectionSpec, report } from '../testing/ops-leon-harness';
import { GroupsProjection } from './groups.projection';

let given: Awaited<ReturnType<typeof opsLeonProjectionSpec<GroupsProjection>>>;
beforeAll(async () => (given = await opsLeonProjectionSpec('olgroupsproj', (store) => new GroupsProjection(store, { HS_OPS_SAMPLE_EVENTS: 2 }))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const at = (minute: number) => `2025-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** A group of its own per spec, and its events by name. */
function newGroup() {
  const groupId = `grp_${randomBytes(12).toString('hex')}`;
  const base = { groupId, project: 'shop' };
  const ev = (type: string, data: Record<string, unknown>): NewEvent => ({ type, data: { ...base, ...data } });
  return {
    groupId,
    received: (eventId: string, minute: number, over: Record<string, unknown> = {}) =>
      inStream(exceptionIngestStreamId('1', 0), ev('exception.received', { projectId: '1', fingerprint: 'f'.repeat(32), receivedAt: at(minute), report: { ...report({ eventId, ...over }), level: 'error', frames: [], tags: {} } })),
    lifecycle: (...events: NewEvent[]) => inStream(exceptionGroupStreamId(groupId), ...events),
    opened: (minute: number) =>
      ev('group.opened', { projectId: '1', fingerprint: 'f'.repeat(32), type: 'OrderNotFound', title: 'order <num> not found', culprit: 'src/orders.js in loadOrder', level: 'error', firstEventId: 'e', at: at(minute) }),
    move: (type: string, from: string, to: string, minute: number, extra: Record<string, unknown> = {}) => ev(`group.${type}`, { from, to, by: 'leon', at: at(minute), ...extra }),
    spiked: (minute: number) => ev('group.spiked', { windowSeconds: 60, count: 300, baseline: 10, factor: 5, at: at(minute) }),
  };
}

const groupRow = (groupId: string) => ({ sql: `SELECT * FROM ops_leon.exception_groups WHERE group_id = $1`, params: [groupId] });
const samplesOf = (groupId: string) => ({ sql: `SELECT event_id FROM ops_leon.exception_samples WHERE group_id = $1 ORDER BY seq DESC`, params: [groupId] });
const timelineOf = (groupId: string) => ({ sql: `SELECT type, from_state, to_state, actor, reason, details FROM ops_leon.group_transitions WHERE group_id = $1 ORDER BY seq`, params: [groupId] });
const hex = (n: number) => n.toString(16).padStart(32, '0');

describe('groups projection', () => {
  it('counts received events, keeps first and last seen, releases and environments, whichever of opened and received comes first', async () => {
    const g = newGroup();
    await spec()
      .given(g.received(hex(1), 5, { release: '1.1', environment: 'production' }), g.lifecycle(g.opened(5)))
      .when(g.received(hex(2), 2, { release: '1.0', environment: 'staging' }), g.received(hex(3), 9, { release: '1.1' }))
      .then(groupRow(g.groupId), [
        {
          group_id: g.groupId, project: 'shop', state: 'NEW', type: 'OrderNotFound', title: 'order <num> not found', culprit: 'src/orders.js in loadOrder', level: 'error',
          count: '3', first_seen: new Date(at(2)), last_seen: new Date(at(9)), releases: ['1.0', '1.1'], environments: ['production', 'staging'], severity: null,
        },
      ]);
  });

  it('keeps only the newest HS_OPS_SAMPLE_EVENTS events of a group, by log position', async () => {
    const g = newGroup();
    await spec()
      .given(g.received(hex(11), 1), g.received(hex(12), 2))
      .when(g.received(hex(13), 3))
      .then(samplesOf(g.groupId), [{ event_id: hex(13) }, { event_id: hex(12) }]);
  });

  it('follows the lifecycle into the state, triage columns and a timeline of every move and spike', async () => {
    const g = newGroup();
    await spec()
      .given(g.lifecycle(g.opened(0), g.move('analysing-started', 'NEW', 'ANALYSING', 1)))
      .when(
        g.lifecycle(
          g.move('triaged', 'ANALYSING', 'ANALYSING', 2, { severity: 'critical', domain: 'database', persona: 'may', autoFixable: true, hypothesis: 'missing index' }),
          g.spiked(3),
          g.move('dismissed', 'ANALYSING', 'DISMISSED', 4, { by: 'operator', reason: 'known outage' }),
        ),
      )
      .then(timelineOf(g.groupId), [
        { type: 'group.opened', from_state: null, to_state: 'NEW', actor: 'leon', reason: null },
        { type: 'group.analysing-started', from_state: 'NEW', to_state: 'ANALYSING', actor: 'leon', reason: null, details: {} },
        { type: 'group.triaged', from_state: 'ANALYSING', to_state: 'ANALYSING', actor: 'leon', details: { severity: 'critical', domain: 'database', persona: 'may', autoFixable: true, hypothesis: 'missing index' } },
        { type: 'group.spiked', from_state: null, to_state: 'ANALYSING', details: { count: 300, baseline: 10, factor: 5, windowSeconds: 60 } },
        { type: 'group.dismissed', from_state: 'ANALYSING', to_state: 'DISMISSED', actor: 'operator', reason: 'known outage' },
      ]);
    await spec().when().then(groupRow(g.groupId), [{ state: 'DISMISSED', severity: 'critical', domain: 'database', persona: 'may', auto_fixable: true, spiked_at: new Date(at(3)) }]);
  });

  it('rebuilt from position 0 equals live', async () => {
    const g = newGroup();
    await spec().given(g.received(hex(21), 1), g.lifecycle(g.opened(1), g.move('resolved', 'NEW', 'RESOLVED', 2, { manual: true, releasesBefore: [] })), g.received(hex(22), 3)).then(groupRow(g.groupId), [{ count: '2', state: 'RESOLVED' }]);
    await spec().rebuiltEqualsLive();
  });
});
