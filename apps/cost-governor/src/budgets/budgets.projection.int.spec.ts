import { randomUUID } from 'node:crypto';
import { budgetIdOf, budgetStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { costGovernorProjectionSpec } from '../testing/projection-store';
import { BudgetsProjection } from './budgets.projection';

let given: Awaited<ReturnType<typeof costGovernorProjectionSpec<BudgetsProjection>>>;
beforeAll(async () => (given = await costGovernorProjectionSpec('budgetsproj', (store) => new BudgetsProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const PERIOD_START = '2025-01-01T00:00:00.000Z';
const NEXT_PERIOD = '2025-01-02T00:00:00.000Z';
const at = (minute: number) => `2025-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** A team budget of its own per spec, and its events by name. */
function newBudget() {
  const team = `t${randomUUID().slice(0, 8)}`;
  const scope = { kind: 'team', team } as const;
  const budgetId = budgetIdOf(scope);
  const ev = (type: string, data: Record<string, unknown>): NewEvent => ({ type: `budget.${type}`, data: { budgetId, ...data } });
  return {
    team,
    scope,
    budgetId,
    events: (...events: NewEvent[]) => inStream(budgetStreamId(budgetId), ...events),
    set: (limitMicros: string | undefined, minute: number, periodStart = PERIOD_START, period = 'day') =>
      ev('set', { scope, ...(limitMicros ? { limitMicros } : {}), period, periodStart, setBy: 'operator', at: at(minute) }),
    periodStarted: (minute: number) => ev('period-started', { periodStart: NEXT_PERIOD, previousSpentMicros: '0', at: at(minute) }),
    reserved: (reservationId: string, amountMicros: string, minute: number) =>
      ev('reserved', { reservationId, amountMicros, model: 'sonnet', expiresAt: '2025-01-01T11:00:00.000Z', at: at(minute) }),
    settled: (costMicros: string, minute: number, reservationId?: string) =>
      ev('settled', { usageId: randomUUID(), ...(reservationId ? { reservationId } : {}), costMicros, releasedMicros: '0', at: at(minute) }),
    expired: (reservationId: string, minute: number) => ev('reservation-expired', { reservationId, releasedMicros: '100', at: at(minute) }),
    released: (reservationId: string, minute: number) => ev('reservation-released', { reservationId, releasedMicros: '100', reason: 'call failed', at: at(minute) }),
    threshold: (level: 'warning' | 'critical', minute: number) =>
      ev('threshold-crossed', { level, percent: level === 'warning' ? 80 : 95, spentMicros: '800', limitMicros: '1000', periodStart: PERIOD_START, action: level === 'warning' ? 'downgrade' : 'pause', at: at(minute) }),
    paused: (minute: number) =>
      ev('paused', { scope, team, reason: '95% of the budget', spentMicros: '950', limitMicros: '1000', proposedAddMicros: '500', at: at(minute) }),
    approvalRequested: (approvalId: string, minute: number) => ev('approval-requested', { approvalId, team, at: at(minute) }),
    resumed: (limitMicros: string, minute: number) => ev('resumed', { addedMicros: '500', limitMicros, resolvedBy: 'operator', approvalId: 'ap-1', at: at(minute) }),
    stopped: (minute: number) => ev('stopped', { resolvedBy: 'operator', reason: 'enough', at: at(minute) }),
  };
}

/** The budgets' rows in the order given, each with `holds`: its open reservations, id → amount. */
const rowsOf = (...budgets: Array<{ budgetId: string }>) => ({
  sql: `SELECT b.*, (SELECT coalesce(jsonb_object_agg(r.reservation_id, r.amount_micros::text), '{}') FROM cost_governor.reservations r WHERE r.budget_id = b.budget_id) AS holds
          FROM cost_governor.budgets b WHERE b.budget_id = ANY ($1) ORDER BY array_position($1, b.budget_id)`,
  params: [budgets.map((b) => b.budgetId)],
});

describe('budgets projection', () => {
  it('a set budget is active with its scope, period and limit, nothing spent or held', async () => {
    const b = newBudget();
    await spec()
      .when(b.events(b.set('1000000', 0)))
      .then(rowsOf(b), [
        {
          budget_id: b.budgetId,
          scope_kind: 'team',
          scope: b.scope,
          status: 'active',
          period: 'day',
          period_start: new Date(PERIOD_START),
          limit_micros: '1000000',
          spent_micros: '0',
          warned: false,
          approval_id: null,
          updated_at: new Date(at(0)),
          holds: {},
        },
      ]);
  });

  it('setting it again in the same period changes the limit and keeps the spend; a new period start resets the spend', async () => {
    const [same, next] = [newBudget(), newBudget()];
    await spec()
      .given(same.events(same.set('1000', 0), same.settled('300', 1)), next.events(next.set('1000', 0), next.settled('300', 1)))
      .when(same.events(same.set(undefined, 2)), next.events(next.set('5000', 2, NEXT_PERIOD, 'week')))
      .then(rowsOf(same, next), [
        { limit_micros: null, spent_micros: '300', period: 'day', period_start: new Date(PERIOD_START), updated_at: new Date(at(2)) },
        { limit_micros: '5000', spent_micros: '0', period: 'week', period_start: new Date(NEXT_PERIOD), updated_at: new Date(at(2)) },
      ]);
  });

  it('a reservation is held until settled, expired or released; settling adds its cost to the spend', async () => {
    const b = newBudget();
    await spec()
      .given(b.events(b.set('1000000', 0), b.reserved('r1', '100', 1), b.reserved('r2', '200', 1), b.reserved('r3', '300', 1), b.reserved('r4', '400', 1)))
      .when(b.events(b.settled('70', 2, 'r1'), b.expired('r2', 3), b.released('r3', 4)))
      .then(rowsOf(b), [{ holds: { r4: '400' }, spent_micros: '70', updated_at: new Date(at(2)) }]);
  });

  it('a hold keeps its expiry for the sweeper', async () => {
    const b = newBudget();
    await spec()
      .when(b.events(b.set('1000000', 0), b.reserved('r1', '100', 1)))
      .then({ sql: 'SELECT * FROM cost_governor.reservations WHERE budget_id = $1', params: [b.budgetId] }, [
        { reservation_id: 'r1', amount_micros: '100', expires_at: new Date('2025-01-01T11:00:00.000Z') },
      ]);
  });

  it('a reservation recorded twice is held once', async () => {
    const b = newBudget();
    await spec()
      .given(b.events(b.set('1000000', 0), b.reserved('r1', '100', 1)))
      .when(b.events(b.reserved('r1', '100', 1)))
      .then(rowsOf(b), [{ holds: { r1: '100' } }]);
  });

  it('within one batch, a hold reserved and settled is gone, and one released and reserved again is held', async () => {
    const b = newBudget();
    await spec()
      .given(b.events(b.set('1000000', 0), b.reserved('again', '100', 1)))
      .when(b.events(b.reserved('gone', '50', 2), b.settled('40', 3, 'gone'), b.released('again', 4), b.reserved('again', '120', 5), b.settled('5', 6)))
      .then(rowsOf(b), [{ holds: { again: '120' }, spent_micros: '45', updated_at: new Date(at(6)) }]);
  });

  it('a batch mixing spend with other events applies them in log order: spend before a new period is reset by it', async () => {
    const b = newBudget();
    await spec()
      .given(b.events(b.set('1000', 0)))
      .when(b.events(b.settled('300', 1), b.threshold('warning', 2), b.periodStarted(3), b.settled('20', 4)))
      .then(rowsOf(b), [{ spent_micros: '20', warned: false, period_start: new Date(NEXT_PERIOD), updated_at: new Date(at(4)) }]);
  });

  it('a warning threshold marks the budget warned; a critical one leaves the row as it was', async () => {
    const [warned, critical] = [newBudget(), newBudget()];
    await spec()
      .given(warned.events(warned.set('1000', 0)), critical.events(critical.set('1000', 0)))
      .when(warned.events(warned.threshold('warning', 1)), critical.events(critical.threshold('critical', 1)))
      .then(rowsOf(warned, critical), [
        { warned: true, status: 'active', updated_at: new Date(at(1)) },
        { warned: false, status: 'active', updated_at: new Date(at(0)) },
      ]);
  });

  it('a paused budget waits on its approval; resumed it is active with the new limit', async () => {
    const [paused, resumed] = [newBudget(), newBudget()];
    await spec()
      .given(paused.events(paused.set('1000', 0)), resumed.events(resumed.set('1000', 0), resumed.paused(1), resumed.approvalRequested('ap-1', 2)))
      .when(paused.events(paused.paused(1), paused.approvalRequested('ap-9', 2)), resumed.events(resumed.resumed('1500', 3)))
      .then(rowsOf(paused, resumed), [
        { status: 'paused', approval_id: 'ap-9', limit_micros: '1000', updated_at: new Date(at(2)) },
        { status: 'active', approval_id: 'ap-1', limit_micros: '1500', updated_at: new Date(at(3)) },
      ]);
  });

  it('a stopped budget is stopped; a new period makes it active again with its approval cleared', async () => {
    const [stopped, renewed] = [newBudget(), newBudget()];
    await spec()
      .given(
        stopped.events(stopped.set('1000', 0), stopped.paused(1), stopped.approvalRequested('ap-1', 2)),
        renewed.events(renewed.set('1000', 0), renewed.paused(1), renewed.approvalRequested('ap-2', 2), renewed.stopped(3)),
      )
      .when(stopped.events(stopped.stopped(3)), renewed.events(renewed.periodStarted(4)))
      .then(rowsOf(stopped, renewed), [
        { status: 'stopped', approval_id: 'ap-1', updated_at: new Date(at(3)) },
        { status: 'active', approval_id: null, spent_micros: '0', period_start: new Date(NEXT_PERIOD), updated_at: new Date(at(4)) },
      ]);
  });
});
