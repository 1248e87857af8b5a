import { HeadspaceError } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, it } from 'vitest';
import { budgetDecider, type BudgetEvent } from './budget.decider';

const spec = DeciderSpec.for(budgetDecider);
const budgetId = 'session.s1';
const scope = { kind: 'session' as const, sessionId: 's1' };
const t0 = '2026-11-22T08:00:00.000Z';
const t1 = '2026-11-22T08:01:00.000Z';

const set = (limitMicros: string, extra: Partial<Extract<BudgetEvent, { type: 'budget.set' }>['data']> = {}): BudgetEvent => ({
  type: 'budget.set',
  data: { budgetId, scope, limitMicros, period: 'none', periodStart: '1970-01-01T00:00:00.000Z', setBy: 'ops', at: t0, ...extra },
});
const reserved = (reservationId: string, amountMicros: string): BudgetEvent => ({
  type: 'budget.reserved',
  data: { budgetId, reservationId, amountMicros, model: 'claude-opus-4-6', expiresAt: t1, at: t0 },
});
const settled = (usageId: string, costMicros: string, reservationId?: string, releasedMicros = '0'): BudgetEvent => ({
  type: 'budget.settled',
  data: { budgetId, usageId, ...(reservationId ? { reservationId } : {}), costMicros, releasedMicros, at: t0 },
});
const reserve = (reservationId: string, amountMicros: bigint, inputTokens = 1_000) =>
  ({ type: 'reserve', reservationId, amountMicros, inputTokens, model: 'claude-opus-4-6', expiresAt: t1, now: t0 }) as const;
const settle = (usageId: string, costMicros: bigint, reservationId?: string) =>
  ({ type: 'settle', usageId, reservationId, costMicros, team: 'alpha', topUpPercent: 50, now: t0 }) as const;
const threshold = (level: 'warning' | 'critical', spentMicros: string): BudgetEvent => ({
  type: 'budget.threshold-crossed',
  data: {
    budgetId,
    level,
    percent: level === 'warning' ? 80 : 95,
    spentMicros,
    limitMicros: '2000000',
    periodStart: '1970-01-01T00:00:00.000Z',
    action: level === 'warning' ? 'downgrade' : 'pause',
    at: t0,
  },
});
const paused = (spentMicros: string): BudgetEvent => ({
  type: 'budget.paused',
  data: { budgetId, scope, team: 'alpha', reason: 'Budget 95% consumed. Continue?', spentMicros, limitMicros: '2000000', proposedAddMicros: '1000000', at: t0 },
});
const withCode = (code: string) => (error: unknown) => error instanceof HeadspaceError && error.code === code;

describe('budget decider', () => {
  it('reserves the worst case when spent + held + amount fits the limit', () => {
    spec.given([set('2000000'), reserved('r1', '500000')]).when(reserve('r2', 1_500_000n)).then([reserved('r2', '1500000')]);
  });

  it('refuses a reservation that would take spent + held over the limit', () => {
    spec.given([set('2000000'), settled('u1', '1000000'), reserved('r1', '500000')]).when(reserve('r2', 500_001n)).thenThrows(withCode('BUDGET.EXCEEDED'));
  });

  it('reserves nothing twice for the same reservation id', () => {
    spec.given([set('2000000'), reserved('r1', '500000')]).when(reserve('r1', 500_000n)).then([]);
  });

  it('refuses a call whose input is above the per-turn input cap', () => {
    spec.given([set('2000000', { turnInputTokens: 1_000 })]).when(reserve('r1', 1n, 1_001)).thenThrows(withCode('BUDGET.TURN_CAP_EXCEEDED'));
  });

  it('settles the real cost and gives back the reservation hold', () => {
    spec.given([set('2000000'), reserved('r1', '500000')]).when(settle('u1', 120_000n, 'r1')).then([settled('u1', '120000', 'r1', '500000')]);
  });

  it('fires the 80% warning once, on the settle that crosses it', () => {
    spec.given([set('2000000'), settled('u1', '1500000')]).when(settle('u2', 100_000n)).then([settled('u2', '100000'), threshold('warning', '1600000')]);
    spec.given([set('2000000'), settled('u1', '1600000'), threshold('warning', '1600000')]).when(settle('u2', 100_000n)).then([settled('u2', '100000')]);
  });

  it('pauses at 95% with the proposed top-up, after the warning', () => {
    spec
      .given([set('2000000'), settled('u1', '1600000'), threshold('warning', '1600000')])
      .when(settle('u2', 300_000n))
      .then([settled('u2', '300000'), threshold('critical', '1900000'), paused('1900000')]);
  });

  it('fires both thresholds when one settle jumps past 95%', () => {
    spec.given([set('2000000')]).when(settle('u1', 1_900_000n)).then([settled('u1', '1900000'), threshold('warning', '1900000'), threshold('critical', '1900000'), paused('1900000')]);
  });

  it('answers paused to new calls while paused, but still settles in-flight calls', () => {
    const history = [set('2000000'), settled('u1', '1900000'), threshold('warning', '1900000'), threshold('critical', '1900000'), paused('1900000')];
    spec.given(history).when(reserve('r9', 1n)).thenThrows(withCode('BUDGET.PAUSED'));
    spec.given(history).when(settle('u2', 50_000n)).then([settled('u2', '50000')]);
  });

  it('resumes with a raised limit on approve and stops on deny', () => {
    const history = [set('2000000'), settled('u1', '1900000'), threshold('warning', '1900000'), threshold('critical', '1900000'), paused('1900000')];
    spec
      .given(history)
      .when({ type: 'resolve-pause', decision: 'approve', addMicros: 1_000_000n, resolvedBy: 'dev', now: t1 })
      .then([{ type: 'budget.resumed', data: { budgetId, addedMicros: '1000000', limitMicros: '3000000', resolvedBy: 'dev', at: t1 } }]);
    spec
      .given(history)
      .when({ type: 'resolve-pause', decision: 'approve', resolvedBy: 'dev', now: t1 })
      .then([{ type: 'budget.resumed', data: { budgetId, addedMicros: '1000000', limitMicros: '3000000', resolvedBy: 'dev', at: t1 } }]);
    spec.given(history).when({ type: 'resolve-pause', decision: 'deny', resolvedBy: 'dev', now: t1 }).then([{ type: 'budget.stopped', data: { budgetId, resolvedBy: 'dev', at: t1 } }]);
  });

  it('refuses new calls on a stopped budget with BUDGET.STOPPED', () => {
    spec
      .given([set('2000000'), settled('u1', '1900000'), paused('1900000'), { type: 'budget.stopped', data: { budgetId, resolvedBy: 'dev', at: t1 } }])
      .when(reserve('r1', 1n))
      .thenThrows(withCode('BUDGET.STOPPED'));
  });

  it('refuses to resolve a budget that is not paused', () => {
    spec.given([set('2000000')]).when({ type: 'resolve-pause', decision: 'approve', resolvedBy: 'dev', now: t1 }).thenThrows(withCode('BUDGET.NOT_PAUSED'));
  });

  it('does not fire the thresholds again after a top-up in the same period', () => {
    const history = [
      set('2000000'),
      settled('u1', '1900000'),
      threshold('warning', '1900000'),
      threshold('critical', '1900000'),
      paused('1900000'),
      { type: 'budget.resumed', data: { budgetId, addedMicros: '1000000', limitMicros: '3000000', resolvedBy: 'dev', at: t1 } } as BudgetEvent,
    ];
    spec.given(history).when(settle('u2', 1_000_000n)).then([settled('u2', '1000000')]);
  });

  it('starts a new period (spend and thresholds afresh) on the first command after it begins', () => {
    const daily = set('2000000', { period: 'day', periodStart: '2026-11-21T00:00:00.000Z' });
    spec
      .given([daily, settled('u1', '1900000'), threshold('warning', '1900000'), threshold('critical', '1900000'), paused('1900000')])
      .when(reserve('r1', 100n))
      .then([
        { type: 'budget.period-started', data: { budgetId, periodStart: '2026-11-22T00:00:00.000Z', previousSpentMicros: '1900000', at: t0 } },
        reserved('r1', '100'),
      ]);
  });

  it('expires the reservations past their time and only those', () => {
    spec
      .given([set('2000000'), reserved('r1', '500'), { type: 'budget.reserved', data: { budgetId, reservationId: 'r2', amountMicros: '700', model: 'm', expiresAt: '2026-11-22T09:00:00.000Z', at: t0 } }])
      .when({ type: 'expire-reservations', now: t1 })
      .then([{ type: 'budget.reservation-expired', data: { budgetId, reservationId: 'r1', releasedMicros: '500', at: t1 } }]);
  });

  it('releases a held reservation on request, and nothing for one it does not hold', () => {
    spec
      .given([set('2000000'), reserved('r1', '500')])
      .when({ type: 'release-reservation', reservationId: 'r1', reason: 'call failed', now: t1 })
      .then([{ type: 'budget.reservation-released', data: { budgetId, reservationId: 'r1', releasedMicros: '500', reason: 'call failed', at: t1 } }]);
    spec.given([set('2000000')]).when({ type: 'release-reservation', reservationId: 'r1', now: t1 }).then([]);
  });

  it('links the approval request once to a paused budget', () => {
    const history = [set('2000000'), settled('u1', '1900000'), paused('1900000')];
    spec.given(history).when({ type: 'record-approval-request', approvalId: 'a1', team: 'alpha', now: t1 }).then([
      { type: 'budget.approval-requested', data: { budgetId, approvalId: 'a1', team: 'alpha', at: t1 } },
    ]);
    spec
      .given([...history, { type: 'budget.approval-requested', data: { budgetId, approvalId: 'a1', team: 'alpha', at: t1 } }])
      .when({ type: 'record-approval-request', approvalId: 'a2', team: 'alpha', now: t1 })
      .then([]);
  });

  it('setting a budget records it from the start of its period; a change keeps the period start while the period kind stays', () => {
    const setBudget = (period: 'none' | 'day', now: string) =>
      ({ type: 'set-budget', budgetId, scope, limitMicros: 3_000_000n, turnInputTokens: 2_000, period, setBy: 'ops', now }) as const;
    spec.given([]).when(setBudget('day', t0)).then([
      { type: 'budget.set', data: { budgetId, scope, limitMicros: '3000000', turnInputTokens: 2_000, period: 'day', periodStart: '2026-11-22T00:00:00.000Z', setBy: 'ops', at: t0 } },
    ]);
    const daily = set('2000000', { period: 'day', periodStart: '2026-11-21T00:00:00.000Z' });
    spec.given([daily]).when(setBudget('day', t0)).then([
      { type: 'budget.set', data: { budgetId, scope, limitMicros: '3000000', turnInputTokens: 2_000, period: 'day', periodStart: '2026-11-21T00:00:00.000Z', setBy: 'ops', at: t0 } },
    ]);
  });

  it('refuses commands on a budget that does not exist', () => {
    spec.given([]).when(reserve('r1', 1n)).thenThrows(withCode('BUDGET.NOT_FOUND'));
  });
});
