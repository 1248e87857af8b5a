import { describe, expect, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { approvalDecider, type ApprovalEvent } from './approval.decider';

const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T10:00:05.000Z';
const requested: ApprovalEvent = {
  type: 'approval.requested',
  data: {
    approvalId: 'a-1',
    team: 'red',
    kind: 'plan-approval',
    requester: 'gavin',
    summary: 'Approve the plan',
    payload: { plan: 'v1' },
    defaultAnswer: 'deny',
    timeoutMs: 1_000,
    requestedAt: now,
    expiresAt: '2026-11-22T10:00:01.000Z',
  },
};
const answer = { type: 'answer-approval' as const, approvalId: 'a-1', decision: 'approve' as const, reason: 'looks good', answeredBy: 'operator', now };
const answered: ApprovalEvent = {
  type: 'approval.decided',
  data: { approvalId: 'a-1', team: 'red', kind: 'plan-approval', decision: 'approve', reason: 'looks good', decidedBy: 'operator', source: 'answer', decidedAt: now },
};
const codeIs = (code: string) => (error: unknown) => (error as { code?: string }).code === code;

describe('approval decider', () => {
  it('a request records the approval with its expiry', () => {
    DeciderSpec.for(approvalDecider)
      .given([])
      .when({ type: 'request-approval', approvalId: 'a-1', team: 'red', kind: 'plan-approval', requester: 'gavin', summary: 'Approve the plan', payload: { plan: 'v1' }, timeoutMs: 1_000, defaultAnswer: 'deny', now })
      .then([requested]);
  });

  it('an answer decides the approval', () => {
    DeciderSpec.for(approvalDecider).given([requested]).when(answer).then([answered]);
  });

  it('a second answer is refused as already answered', () => {
    DeciderSpec.for(approvalDecider).given([requested, answered]).when({ ...answer, decision: 'deny' }).thenThrows(codeIs('APPROVAL.ALREADY_ANSWERED'));
  });

  it('the timeout applies the default answer once it has passed, and not before', () => {
    DeciderSpec.for(approvalDecider).given([requested]).when({ type: 'time-out', approvalId: 'a-1', now }).then([]);
    const events = approvalDecider.decide({ type: 'time-out', approvalId: 'a-1', now: later }, approvalDecider.evolve(approvalDecider.initialState(), requested));
    expect(events.map((e) => [e.type, 'decision' in e.data ? e.data.decision : e.data.defaultAnswer])).toEqual([
      ['approval.timed-out', 'deny'],
      ['approval.decided', 'deny'],
    ]);
  });

  it('an answer after the timeout was applied is refused as timed out; a timeout after an answer does nothing', () => {
    const timedOut = approvalDecider.decide({ type: 'time-out', approvalId: 'a-1', now: later }, approvalDecider.evolve(approvalDecider.initialState(), requested));
    DeciderSpec.for(approvalDecider).given([requested, ...timedOut]).when(answer).thenThrows(codeIs('APPROVAL.ALREADY_TIMED_OUT'));
    DeciderSpec.for(approvalDecider).given([requested, answered]).when({ type: 'time-out', approvalId: 'a-1', now: later }).then([]);
  });

  it('answering an unknown approval is refused', () => {
    DeciderSpec.for(approvalDecider).given([]).when(answer).thenThrows(codeIs('APPROVAL.NOT_FOUND'));
  });
});
