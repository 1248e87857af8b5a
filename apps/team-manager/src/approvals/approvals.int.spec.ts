import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from '@nats-io/nats-core';
import {
  answerApproval,
  approvalDecided,
  approvalTimedOut,
  createTeam,
  ErrorCodes,
  getApproval,
  listApprovals,
  requestApproval,
} from '@headspace/contracts';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { ApprovalsProjection } from './approvals.projection';

let tm: TeamManagerHarness;
let subscription: Subscription;
/** Every approval event the service published (via its relay to JetStream), as a consumer would see them. */
const published: Array<{ type: string; streamId: string; data: { approvalId: string; decision?: string } }> = [];

beforeAll(async () => {
  tm = await startTeamManager('approvals');
  subscription = tm.nc.subscribe(approvalTimedOut.subject.replace(/timed-out$/, '*'), {
    callback: (_err, msg) => {
      published.push(msg.json());
    },
  });
  await tm.nc.flush();
  await tm.send(createTeam, { name: 'red' });
  await tm.send(createTeam, { name: 'blue' });
});
afterAll(async () => {
  subscription?.unsubscribe();
  await tm?.close();
});

const HOUR = 3_600_000;
const approvalEvents = async () => Number((await tm.db.pool.query(`SELECT count(*) FROM team_manager.events WHERE category = 'approval'`)).rows[0].count);
const caughtUp = () => tm.apps[0].get(ApprovalsProjection).runner.waitUntilCaughtUp();

describe('approvals queue', () => {
  it('request → listed as pending for its team and kind → answered → decided with reason and answerer', async () => {
    const { approvalId, expiresAt } = await tm.send(requestApproval, {
      team: 'red',
      kind: 'plan-approval',
      requester: 'gavin',
      summary: 'Approve the decomposition of the auth feature',
      payload: { tasks: 7, spec: 'auth.md' },
      timeoutMs: HOUR,
      defaultAnswer: 'deny',
    });
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(HOUR - 60_000);
    await caughtUp();
    const pending = await tm.send(listApprovals, { team: 'red', kind: 'plan-approval' });
    expect(pending.approvals).toEqual([
      expect.objectContaining({ approvalId, kind: 'plan-approval', requester: 'gavin', payload: { tasks: 7, spec: 'auth.md' }, status: 'pending', defaultAnswer: 'deny' }),
    ]);
    expect((await tm.send(listApprovals, { team: 'blue' })).approvals).toEqual([]);
    expect((await tm.send(listApprovals, { team: 'red', kind: 'fix-approval' })).approvals).toEqual([]);

    expect(await tm.send(answerApproval, { approvalId, decision: 'approve', reason: 'sequencing is right', answeredBy: 'robbo' })).toMatchObject({ status: 'approved' });
    await caughtUp();
    expect(await tm.send(getApproval, { approvalId })).toMatchObject({
      status: 'approved',
      decision: 'approve',
      reason: 'sequencing is right',
      decidedBy: 'robbo',
      decisionSource: 'answer',
    });
    expect((await tm.send(listApprovals, { team: 'red', kind: 'plan-approval' })).approvals).toEqual([]);
    expect((await tm.send(listApprovals, { team: 'red', status: 'approved' })).approvals.map((a) => a.approvalId)).toContain(approvalId);
  });

  it('every kind is one typed queue: plan approval, permission request, budget overrun, fix approval, skill-file update', async () => {
    const kinds = ['plan-approval', 'permission-request', 'budget-overrun', 'fix-approval', 'skill-file-update'] as const;
    const ids = [];
    for (const kind of kinds) ids.push((await tm.send(requestApproval, { team: 'blue', kind, requester: 'con', summary: kind, timeoutMs: HOUR })).approvalId);
    await caughtUp();
    const all = await tm.send(listApprovals, { team: 'blue' });
    expect(all.approvals.map((a) => [a.kind, a.status])).toEqual(kinds.map((k) => [k, 'pending']));
    for (const approvalId of ids) await tm.send(answerApproval, { approvalId, decision: 'deny', answeredBy: 'operator' });
    await caughtUp();
    expect((await tm.send(listApprovals, { team: 'blue' })).approvals).toEqual([]);
  });

  it('answering twice is refused with APPROVAL.ALREADY_ANSWERED and the first decision stands', async () => {
    const { approvalId } = await tm.send(requestApproval, { team: 'red', kind: 'permission-request', requester: 'al', summary: 'Run npm publish', timeoutMs: HOUR });
    await tm.send(answerApproval, { approvalId, decision: 'deny', reason: 'not on a branch', answeredBy: 'operator' });
    const before = await approvalEvents();
    const error = await tm.sendError(answerApproval, { approvalId, decision: 'approve', answeredBy: 'operator' });
    expect({ code: error.code, field: error.field }).toEqual({ code: ErrorCodes.approvalAlreadyAnswered, field: 'approvalId' });
    expect(await approvalEvents()).toBe(before);
    await caughtUp();
    expect(await tm.send(getApproval, { approvalId })).toMatchObject({ status: 'denied', reason: 'not on a branch' });
  });

  it('a retried answer (same command id) returns its first result instead of ALREADY_ANSWERED', async () => {
    const { approvalId } = await tm.send(requestApproval, { team: 'red', kind: 'budget-overrun', requester: 'cost-governor', summary: 'Session over budget', timeoutMs: HOUR });
    const commandId = randomUUID();
    const first = await tm.send(answerApproval, { approvalId, decision: 'approve', answeredBy: 'operator' }, { commandId });
    expect(await tm.send(answerApproval, { approvalId, decision: 'approve', answeredBy: 'operator' }, { commandId })).toEqual(first);
  });

  it('a timeout applies the default answer: approval.timed-out and the decision, once even with two instances sweeping, after which an answer is refused', async () => {
    if (tm.apps.length < 2) await tm.addInstance();
    const before = await approvalEvents();
    const approve = await tm.send(requestApproval, { team: 'red', kind: 'skill-file-update', requester: 'con', summary: 'Add a learning', timeoutMs: 300, defaultAnswer: 'approve' });
    const deny = await tm.send(requestApproval, { team: 'red', kind: 'fix-approval', requester: 'leon', summary: 'Apply fix', timeoutMs: 300, defaultAnswer: 'deny' });
    const decided = await waitFor(
      async () => {
        const [a, d] = await Promise.all([tm.send(getApproval, { approvalId: approve.approvalId }), tm.send(getApproval, { approvalId: deny.approvalId })]);
        return a.status !== 'pending' && d.status !== 'pending' && [a, d];
      },
      { message: 'both approvals timed out' },
    );
    expect(decided[0]).toMatchObject({ status: 'approved', decision: 'approve', decisionSource: 'timeout', decidedBy: 'system:timeout' });
    expect(decided[1]).toMatchObject({ status: 'denied', decision: 'deny', decisionSource: 'timeout' });
    expect(Date.parse(decided[0].decidedAt!)).toBeGreaterThanOrEqual(Date.parse(decided[0].expiresAt));
    const events = await waitFor(() => {
      const mine = published.filter((e) => e.data.approvalId === approve.approvalId);
      return mine.length === 3 && mine;
    });
    expect(events.map((e) => [e.type, e.data.decision])).toEqual([
      ['approval.requested', undefined],
      ['approval.timed-out', undefined],
      [approvalDecided.type, 'approve'],
    ]);
    const error = await tm.sendError(answerApproval, { approvalId: deny.approvalId, decision: 'approve', answeredBy: 'operator' });
    expect(error.code).toBe(ErrorCodes.approvalAlreadyTimedOut);
    // Two requests, each requested + timed-out + decided: both sweepers saw them, the log holds each decision once.
    expect(await approvalEvents()).toBe(before + 6);
  });

  it('bad input on every approval command is refused with the field named and nothing appended', async () => {
    const before = await approvalEvents();
    const ok = { team: 'red', kind: 'plan-approval', requester: 'gavin', summary: 's', timeoutMs: HOUR };
    const cases: Array<[Parameters<typeof tm.sendError>[0], unknown, string, string]> = [
      [requestApproval, { ...ok, team: undefined }, ErrorCodes.validationFailed, 'team'],
      [requestApproval, { ...ok, team: 'nobody' }, ErrorCodes.approvalUnknownTeam, 'team'],
      [requestApproval, { ...ok, kind: 'coffee' }, ErrorCodes.validationFailed, 'kind'],
      [requestApproval, { ...ok, requester: undefined }, ErrorCodes.validationFailed, 'requester'],
      [requestApproval, { ...ok, summary: 's'.repeat(501) }, ErrorCodes.validationFailed, 'summary'],
      [requestApproval, { ...ok, timeoutMs: 'soon' }, ErrorCodes.validationFailed, 'timeoutMs'],
      [requestApproval, { ...ok, timeoutMs: 10 }, ErrorCodes.validationFailed, 'timeoutMs'],
      [requestApproval, { ...ok, defaultAnswer: 'maybe' }, ErrorCodes.validationFailed, 'defaultAnswer'],
      [requestApproval, { ...ok, payload: { blob: 'x'.repeat(20_000) } }, ErrorCodes.validationFailed, 'payload'],
      [requestApproval, { ...ok, payload: 'text' }, ErrorCodes.validationFailed, 'payload'],
      [answerApproval, { decision: 'approve', answeredBy: 'op' }, ErrorCodes.validationFailed, 'approvalId'],
      [answerApproval, { approvalId: randomUUID(), decision: 'approve', answeredBy: 'op' }, ErrorCodes.approvalNotFound, 'approvalId'],
      [answerApproval, { approvalId: randomUUID(), decision: 'yes', answeredBy: 'op' }, ErrorCodes.validationFailed, 'decision'],
      [answerApproval, { approvalId: randomUUID(), decision: 'deny' }, ErrorCodes.validationFailed, 'answeredBy'],
      [answerApproval, { approvalId: randomUUID(), decision: 'deny', answeredBy: 'op', reason: 'r'.repeat(2_001) }, ErrorCodes.validationFailed, 'reason'],
      [listApprovals, { kind: 'plan-approval' }, ErrorCodes.validationFailed, 'team'],
      [getApproval, { approvalId: randomUUID() }, ErrorCodes.approvalNotFound, 'approvalId'],
    ];
    for (const [definition, body, code, field] of cases) {
      const error = await tm.sendError(definition, body);
      expect({ subject: definition.name, code: error.code, field: error.field }).toEqual({ subject: definition.name, code, field });
    }
    expect(await approvalEvents()).toBe(before);
  });

  it('the approvals projection rebuilt from position 0 equals the live one row for row', async () => {
    await tm.send(requestApproval, { team: 'blue', kind: 'fix-approval', requester: 'leon', summary: 'still pending', timeoutMs: HOUR });
    const live = (await expectRebuiltEqualsLive(tm.apps[0].get(ApprovalsProjection), tm.db.pool)).approvals.map((row) => JSON.parse(row));
    expect(live.length).toBeGreaterThanOrEqual(10);
    expect(new Set(live.map((r) => r.status))).toEqual(new Set(['pending', 'approved', 'denied']));
  });
});
