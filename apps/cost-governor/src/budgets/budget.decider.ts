import {
  ErrorCodes,
  HeadspaceError,
  type budgetApprovalRequested,
  type BudgetPeriod,
  type budgetPaused,
  type budgetPeriodStarted,
  type budgetReservationExpired,
  type budgetReservationReleased,
  type budgetReserved,
  type budgetResumed,
  type BudgetScope,
  type budgetSet,
  type budgetSettled,
  type budgetStopped,
  type budgetThresholdCrossed,
  type EventData,
} from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';
import { periodStartOf } from './budget-period';

export type BudgetEvent =
  | { type: 'budget.set'; data: EventData<typeof budgetSet> }
  | { type: 'budget.period-started'; data: EventData<typeof budgetPeriodStarted> }
  | { type: 'budget.reserved'; data: EventData<typeof budgetReserved> }
  | { type: 'budget.settled'; data: EventData<typeof budgetSettled> }
  | { type: 'budget.reservation-expired'; data: EventData<typeof budgetReservationExpired> }
  | { type: 'budget.reservation-released'; data: EventData<typeof budgetReservationReleased> }
  | { type: 'budget.threshold-crossed'; data: EventData<typeof budgetThresholdCrossed> }
  | { type: 'budget.paused'; data: EventData<typeof budgetPaused> }
  | { type: 'budget.approval-requested'; data: EventData<typeof budgetApprovalRequested> }
  | { type: 'budget.resumed'; data: EventData<typeof budgetResumed> }
  | { type: 'budget.stopped'; data: EventData<typeof budgetStopped> };

export interface Reservation {
  amount: bigint;
  expiresAt: string;
}

export interface ActiveBudget {
  status: 'active' | 'paused' | 'stopped';
  budgetId: string;
  scope: BudgetScope;
  limit?: bigint;
  turnInputTokens?: number;
  turnOutputTokens?: number;
  period: BudgetPeriod;
  periodStart: string;
  spent: bigint;
  reservations: Record<string, Reservation>;
  /** The sum of the reservations' amounts (kept with them: asked on every decision). */
  held: bigint;
  /** The 80% threshold fired this period (the model stays one tier down until the period ends). */
  warned: boolean;
  /** The 95% threshold fired this period. */
  critical: boolean;
  proposedAdd: bigint;
  approvalId?: string;
}

export type BudgetState = { status: 'none' } | ActiveBudget;

export const WARNING_PERCENT = 80;
export const CRITICAL_PERCENT = 95;

export type BudgetCommand =
  | {
      type: 'set-budget';
      budgetId: string;
      scope: BudgetScope;
      limitMicros?: bigint;
      turnInputTokens?: number;
      turnOutputTokens?: number;
      period: BudgetPeriod;
      setBy: string;
      now: string;
    }
  | { type: 'reserve'; reservationId: string; amountMicros: bigint; inputTokens: number; model: string; expiresAt: string; now: string }
  | { type: 'settle'; usageId: string; reservationId?: string; costMicros: bigint; team: string; topUpPercent: number; now: string }
  | { type: 'expire-reservations'; now: string }
  | { type: 'release-reservation'; reservationId: string; reason?: string; now: string }
  | { type: 'record-approval-request'; approvalId: string; team: string; now: string }
  | { type: 'resolve-pause'; decision: 'approve' | 'deny'; addMicros?: bigint; resolvedBy: string; approvalId?: string; reason?: string; now: string };

export const reservedTotal = (state: ActiveBudget): bigint => state.held;

/** The reservations and their total without one of them (copied key by key: `delete` would turn the object into a slow dictionary). */
function release(state: ActiveBudget, reservationId: string): Pick<ActiveBudget, 'reservations' | 'held'> {
  const gone = state.reservations[reservationId];
  if (!gone) return { reservations: state.reservations, held: state.held };
  const reservations: Record<string, Reservation> = {};
  for (const id in state.reservations) if (id !== reservationId) reservations[id] = state.reservations[id];
  return { reservations, held: state.held - gone.amount };
}

const str = (n: bigint) => n.toString();

function mustExist(state: BudgetState, budgetId?: string): ActiveBudget {
  if (state.status === 'none') throw new HeadspaceError(ErrorCodes.budgetNotFound, `No budget "${budgetId ?? ''}"`, { field: 'budgetId' });
  return state;
}

/** A new period has begun since the state's: the first event of any command in it. */
function rollover(state: ActiveBudget, now: string): BudgetEvent[] {
  if (state.period === 'none') return [];
  const start = periodStartOf(state.period, new Date(now));
  if (start <= state.periodStart) return [];
  return [{ type: 'budget.period-started', data: { budgetId: state.budgetId, periodStart: start, previousSpentMicros: str(state.spent), at: now } }];
}

/** Events of thresholds the spend crossed for the first time this period: 80% → downgrade, 95% → pause. */
function thresholds(state: ActiveBudget, team: string, now: string): BudgetEvent[] {
  const limit = state.limit;
  if (limit === undefined || limit === 0n) return [];
  const events: BudgetEvent[] = [];
  const base = { budgetId: state.budgetId, spentMicros: str(state.spent), limitMicros: str(limit), periodStart: state.periodStart, at: now };
  if (!state.warned && state.spent * 100n >= BigInt(WARNING_PERCENT) * limit) {
    events.push({ type: 'budget.threshold-crossed', data: { ...base, level: 'warning', percent: WARNING_PERCENT, action: 'downgrade' } });
  }
  if (!state.critical && state.spent * 100n >= BigInt(CRITICAL_PERCENT) * limit) {
    events.push({ type: 'budget.threshold-crossed', data: { ...base, level: 'critical', percent: CRITICAL_PERCENT, action: 'pause' } });
    if (state.status === 'active') {
      events.push({
        type: 'budget.paused',
        data: {
          budgetId: state.budgetId,
          scope: state.scope,
          team,
          reason: 'Budget 95% consumed. Continue?',
          spentMicros: str(state.spent),
          limitMicros: str(limit),
          proposedAddMicros: str(state.proposedAdd),
          at: now,
        },
      });
    }
  }
  return events;
}

function decide(command: BudgetCommand, state: BudgetState): BudgetEvent[] {
  if (command.type === 'set-budget') {
    const periodStart = state.status !== 'none' && state.period === command.period ? state.periodStart : periodStartOf(command.period, new Date(command.now));
    return [
      {
        type: 'budget.set',
        data: {
          budgetId: command.budgetId,
          scope: command.scope,
          ...(command.limitMicros === undefined ? {} : { limitMicros: str(command.limitMicros) }),
          ...(command.turnInputTokens === undefined ? {} : { turnInputTokens: command.turnInputTokens }),
          ...(command.turnOutputTokens === undefined ? {} : { turnOutputTokens: command.turnOutputTokens }),
          period: command.period,
          periodStart,
          setBy: command.setBy,
          at: command.now,
        },
      },
    ];
  }
  const current = mustExist(state);
  const rolled = rollover(current, command.now);
  const s = rolled.reduce(evolve, current as BudgetState) as ActiveBudget;
  switch (command.type) {
    case 'reserve': {
      if (s.reservations[command.reservationId]) return rolled;
      if (s.status === 'stopped') {
        throw new HeadspaceError(ErrorCodes.budgetStopped, `Budget "${s.budgetId}" was stopped`, { details: { budgetId: s.budgetId } });
      }
      if (s.status === 'paused') {
        throw new HeadspaceError(ErrorCodes.budgetPaused, `Budget "${s.budgetId}" is paused awaiting approval`, {
          details: { budgetId: s.budgetId, ...(s.approvalId ? { approvalId: s.approvalId } : {}) },
        });
      }
      if (s.turnInputTokens !== undefined && command.inputTokens > s.turnInputTokens) {
        throw new HeadspaceError(ErrorCodes.budgetTurnCapExceeded, `${command.inputTokens} input tokens exceed the turn cap of ${s.turnInputTokens} of "${s.budgetId}"`, {
          field: 'estimate.inputTokens',
          details: { budgetId: s.budgetId },
        });
      }
      if (s.limit !== undefined && s.spent + reservedTotal(s) + command.amountMicros > s.limit) {
        throw new HeadspaceError(ErrorCodes.budgetExceeded, `Budget "${s.budgetId}" cannot cover the worst case of this call`, {
          details: { budgetId: s.budgetId, spentMicros: str(s.spent), reservedMicros: str(reservedTotal(s)), limitMicros: str(s.limit), amountMicros: str(command.amountMicros) },
        });
      }
      return [
        ...rolled,
        {
          type: 'budget.reserved',
          data: { budgetId: s.budgetId, reservationId: command.reservationId, amountMicros: str(command.amountMicros), model: command.model, expiresAt: command.expiresAt, at: command.now },
        },
      ];
    }
    case 'settle': {
      const held = command.reservationId ? s.reservations[command.reservationId]?.amount ?? 0n : 0n;
      const settled: BudgetEvent = {
        type: 'budget.settled',
        data: {
          budgetId: s.budgetId,
          usageId: command.usageId,
          ...(command.reservationId ? { reservationId: command.reservationId } : {}),
          costMicros: str(command.costMicros),
          releasedMicros: str(held),
          at: command.now,
        },
      };
      const after = evolve(s, settled) as ActiveBudget;
      const withTopUp = { ...after, proposedAdd: after.limit === undefined ? 0n : (after.limit * BigInt(command.topUpPercent)) / 100n };
      return [...rolled, settled, ...thresholds(withTopUp, command.team, command.now)];
    }
    case 'expire-reservations': {
      const expired = Object.entries(s.reservations).filter(([, r]) => r.expiresAt <= command.now);
      return [
        ...rolled,
        ...expired.map(([reservationId, r]): BudgetEvent => ({
          type: 'budget.reservation-expired',
          data: { budgetId: s.budgetId, reservationId, releasedMicros: str(r.amount), at: command.now },
        })),
      ];
    }
    case 'release-reservation': {
      const held = s.reservations[command.reservationId];
      if (!held) return rolled;
      return [
        ...rolled,
        {
          type: 'budget.reservation-released',
          data: { budgetId: s.budgetId, reservationId: command.reservationId, releasedMicros: str(held.amount), ...(command.reason ? { reason: command.reason } : {}), at: command.now },
        },
      ];
    }
    case 'record-approval-request': {
      if (s.status !== 'paused' || s.approvalId !== undefined) return rolled;
      return [...rolled, { type: 'budget.approval-requested', data: { budgetId: s.budgetId, approvalId: command.approvalId, team: command.team, at: command.now } }];
    }
    case 'resolve-pause': {
      if (s.status !== 'paused') {
        throw new HeadspaceError(ErrorCodes.budgetNotPaused, `Budget "${s.budgetId}" is ${s.status}, not paused`, { field: 'budgetId' });
      }
      const approvalId = command.approvalId ?? s.approvalId;
      if (command.decision === 'deny') {
        return [
          ...rolled,
          {
            type: 'budget.stopped',
            data: { budgetId: s.budgetId, resolvedBy: command.resolvedBy, ...(command.reason ? { reason: command.reason } : {}), ...(approvalId ? { approvalId } : {}), at: command.now },
          },
        ];
      }
      const added = command.addMicros ?? s.proposedAdd;
      return [
        ...rolled,
        {
          type: 'budget.resumed',
          data: { budgetId: s.budgetId, addedMicros: str(added), limitMicros: str((s.limit ?? 0n) + added), resolvedBy: command.resolvedBy, ...(approvalId ? { approvalId } : {}), at: command.now },
        },
      ];
    }
  }
}

function evolve(state: BudgetState, event: BudgetEvent): BudgetState {
  if (event.type === 'budget.set') {
    const d = event.data;
    const prior = state.status === 'none' ? undefined : state;
    const limit = d.limitMicros === undefined ? undefined : BigInt(d.limitMicros);
    return {
      status: prior?.status ?? 'active',
      budgetId: d.budgetId,
      scope: d.scope,
      limit,
      turnInputTokens: d.turnInputTokens,
      turnOutputTokens: d.turnOutputTokens,
      period: d.period,
      periodStart: d.periodStart,
      spent: prior && prior.periodStart === d.periodStart ? prior.spent : 0n,
      reservations: prior?.reservations ?? {},
      held: prior?.held ?? 0n,
      warned: prior?.warned ?? false,
      critical: prior?.critical ?? false,
      proposedAdd: prior?.proposedAdd ?? 0n,
      approvalId: prior?.approvalId,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'budget.period-started':
      return { ...state, status: 'active', periodStart: event.data.periodStart, spent: 0n, warned: false, critical: false, approvalId: undefined };
    case 'budget.reserved': {
      const { reservations, held } = release(state, event.data.reservationId);
      const amount = BigInt(event.data.amountMicros);
      return { ...state, reservations: { ...reservations, [event.data.reservationId]: { amount, expiresAt: event.data.expiresAt } }, held: held + amount };
    }
    case 'budget.settled':
      return { ...state, ...(event.data.reservationId ? release(state, event.data.reservationId) : {}), spent: state.spent + BigInt(event.data.costMicros) };
    case 'budget.reservation-expired':
    case 'budget.reservation-released':
      return { ...state, ...release(state, event.data.reservationId) };
    case 'budget.threshold-crossed':
      return event.data.level === 'warning' ? { ...state, warned: true } : { ...state, critical: true };
    case 'budget.paused':
      return { ...state, status: 'paused', proposedAdd: BigInt(event.data.proposedAddMicros), approvalId: undefined };
    case 'budget.approval-requested':
      return { ...state, approvalId: event.data.approvalId };
    case 'budget.resumed':
      return { ...state, status: 'active', limit: BigInt(event.data.limitMicros) };
    case 'budget.stopped':
      return { ...state, status: 'stopped' };
  }
}

export const budgetDecider: Decider<BudgetCommand, BudgetState, BudgetEvent> = {
  initialState: () => ({ status: 'none' }),
  decide,
  evolve,
};
