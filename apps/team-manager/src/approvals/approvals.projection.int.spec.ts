import { randomUUID } from 'node:crypto';
import { approvalStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { teamManagerProjectionSpec } from '../testing/projection-store';
import { ApprovalsProjection } from './approvals.projection';

let given: Awaited<ReturnType<typeof teamManagerProjectionSpec<ApprovalsProjection>>>;
beforeAll(async () => (given = await teamManagerProjectionSpec('approvalsproj', (store) => new ApprovalsProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const newTeam = () => `t${randomUUID().slice(0, 8)}`;
const REQUESTED_AT = '2025-01-01T10:00:00.000Z';
const EXPIRES_AT = '2025-01-01T10:05:00.000Z';

const requested = (team: string, approvalId: string, summary = 'Merge the parser plan'): NewEvent => ({
  type: 'approval.requested',
  data: {
    approvalId,
    team,
    kind: 'plan-approval',
    requester: 'gavin',
    summary,
    payload: { tasks: 3 },
    defaultAnswer: 'deny',
    timeoutMs: 300_000,
    requestedAt: REQUESTED_AT,
    expiresAt: EXPIRES_AT,
  },
});
const answered = (team: string, approvalId: string, decision: 'approve' | 'deny', reason?: string): NewEvent => ({
  type: 'approval.decided',
  data: { approvalId, team, kind: 'plan-approval', decision, ...(reason ? { reason } : {}), decidedBy: 'operator', source: 'answer', decidedAt: '2025-01-01T10:02:00.000Z' },
});
const timedOut = (team: string, approvalId: string): NewEvent => ({
  type: 'approval.timed-out',
  data: { approvalId, team, kind: 'plan-approval', defaultAnswer: 'deny', expiresAt: EXPIRES_AT, timedOutAt: '2025-01-01T10:05:01.000Z' },
});
const decidedByTimeout = (team: string, approvalId: string): NewEvent => ({
  type: 'approval.decided',
  data: { approvalId, team, kind: 'plan-approval', decision: 'deny', decidedBy: 'timeout', source: 'timeout', decidedAt: '2025-01-01T10:05:01.000Z' },
});

const approvalsOf = (team: string) => ({ sql: 'SELECT * FROM team_manager.approvals WHERE team = $1 ORDER BY seq', params: [team] });
const undecided = { decision: null, reason: null, decided_by: null, decision_source: null, decided_at: null };

describe('approvals projection', () => {
  it('a requested approval is pending with its payload, default answer and expiry, in request order', async () => {
    const team = newTeam();
    const [first, second] = [randomUUID(), randomUUID()];
    await spec()
      .when(inStream(approvalStreamId(first), requested(team, first)), inStream(approvalStreamId(second), requested(team, second, 'Second plan')))
      .then(approvalsOf(team), [
        {
          approval_id: first,
          kind: 'plan-approval',
          requester: 'gavin',
          summary: 'Merge the parser plan',
          payload: { tasks: 3 },
          default_answer: 'deny',
          status: 'pending',
          requested_at: new Date(REQUESTED_AT),
          expires_at: new Date(EXPIRES_AT),
          ...undecided,
        },
        { approval_id: second, summary: 'Second plan', status: 'pending' },
      ]);
  });

  it('an answer decides it: approved or denied, with the reason and who answered', async () => {
    const team = newTeam();
    const [yes, no] = [randomUUID(), randomUUID()];
    await spec()
      .given(inStream(approvalStreamId(yes), requested(team, yes)), inStream(approvalStreamId(no), requested(team, no)))
      .when(inStream(approvalStreamId(yes), answered(team, yes, 'approve')), inStream(approvalStreamId(no), answered(team, no, 'deny', 'too many tasks')))
      .then(approvalsOf(team), [
        { approval_id: yes, status: 'approved', decision: 'approve', reason: null, decided_by: 'operator', decision_source: 'answer', decided_at: new Date('2025-01-01T10:02:00.000Z') },
        { approval_id: no, status: 'denied', decision: 'deny', reason: 'too many tasks', decided_by: 'operator', decision_source: 'answer' },
      ]);
  });

  it('a timeout alone leaves it pending; the default answer that follows decides it', async () => {
    const team = newTeam();
    const [waiting, defaulted] = [randomUUID(), randomUUID()];
    await spec()
      .given(inStream(approvalStreamId(waiting), requested(team, waiting)), inStream(approvalStreamId(defaulted), requested(team, defaulted)))
      .when(inStream(approvalStreamId(waiting), timedOut(team, waiting)), inStream(approvalStreamId(defaulted), timedOut(team, defaulted), decidedByTimeout(team, defaulted)))
      .then(approvalsOf(team), [
        { approval_id: waiting, status: 'pending', ...undecided },
        { approval_id: defaulted, status: 'denied', decision: 'deny', decided_by: 'timeout', decision_source: 'timeout', decided_at: new Date('2025-01-01T10:05:01.000Z') },
      ]);
  });

  it('a request recorded again under the same id keeps the first one and its place in the queue', async () => {
    const team = newTeam();
    const id = randomUUID();
    await spec()
      .given(inStream(approvalStreamId(id), requested(team, id)))
      .when(inStream(approvalStreamId(id), requested(team, id, 'A different summary')))
      .then(approvalsOf(team), [{ approval_id: id, summary: 'Merge the parser plan', status: 'pending' }]);
  });
});
