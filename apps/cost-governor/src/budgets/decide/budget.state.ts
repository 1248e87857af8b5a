import type {
  budgetApprovalRequested,
  BudgetPeriod,
  budgetPaused,
  budgetPeriodStarted,
  budgetReservationExpired,
  budgetReservationReleased,
  budgetReserved,
  budgetResumed,
  BudgetScope,
  budgetSet,
  budgetSettled,
  budgetStopped,
  budgetThresholdCrossed,
  EventData,
} from '@headspace/contracts';

/** A budget's events and the state they fold to: its limit, its spend and holds this period, and where its thresholds stand. */
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

export const reservedTotal = (state: ActiveBudget): bigint => state.held;

/** The reservations and their total without one of them (copied key by key: `delete` would turn the object into a slow dictionary). */
function release(state: ActiveBudget, reservationId: string): Pick<ActiveBudget, 'reservations' | 'held'> {
  const gone = state.reservations[reservationId];
  if (!gone) return { reservations: state.reservations, held: state.held };
  const reservations: Record<string, Reservation> = {};
  for (const id in state.reservations) if (id !== reservationId) reservations[id] = state.reservations[id];
  return { reservations, held: state.held - gone.amount };
}

export function evolveBudget(state: BudgetState, event: BudgetEvent): BudgetState {
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
