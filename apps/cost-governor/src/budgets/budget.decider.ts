import { ErrorCodes, HeadspaceError, type BudgetPeriod, type BudgetScope } from '@headspace/contracts';
import { decideByType, type Decider } from '@headspace/event-store';
import { periodStartOf } from './budget-period';
import { CRITICAL_PERCENT, evolveBudget as evolve, reservedTotal, WARNING_PERCENT, type ActiveBudget, type BudgetEvent, type BudgetState } from './decide/budget.state';

export * from './decide/budget.state';

export interface SetBudget {
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

export type BudgetCommand =
  | SetBudget
  | { type: 'reserve'; reservationId: string; amountMicros: bigint; inputTokens: number; model: string; expiresAt: string; now: string }
  | { type: 'settle'; usageId: string; reservationId?: string; costMicros: bigint; team: string; topUpPercent: number; now: string }
  | { type: 'expire-reservations'; now: string }
  | { type: 'release-reservation'; reservationId: string; reason?: string; now: string }
  | { type: 'record-approval-request'; approvalId: string; team: string; now: string }
  | { type: 'resolve-pause'; decision: 'approve' | 'deny'; addMicros?: bigint; resolvedBy: string; approvalId?: string; reason?: string; now: string };

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

/** A budget is set (or changed) at any time; its period start carries over while the period kind stays. */
function setBudget(command: SetBudget, state: BudgetState): BudgetEvent[] {
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

type OnBudget<T extends BudgetCommand['type']> = (command: Extract<BudgetCommand, { type: T }>, budget: ActiveBudget) => BudgetEvent[];

/**
 * A call is reserved once per reservation id, on an active budget, within the turn cap, and only
 * when its worst case still fits: spent + held + amount ≤ limit.
 */
const reserve: OnBudget<'reserve'> = (command, s) => {
  if (s.reservations[command.reservationId]) return [];
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
    {
      type: 'budget.reserved',
      data: { budgetId: s.budgetId, reservationId: command.reservationId, amountMicros: str(command.amountMicros), model: command.model, expiresAt: command.expiresAt, at: command.now },
    },
  ];
};

/** A real cost is always settled, even on a paused or stopped budget (the call was made); its hold is given back and crossed thresholds fire once. */
const settle: OnBudget<'settle'> = (command, s) => {
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
  return [settled, ...thresholds(withTopUp, command.team, command.now)];
};

/** Every reservation past its expiry is given back, and only those. */
const expireReservations: OnBudget<'expire-reservations'> = (command, s) =>
  Object.entries(s.reservations)
    .filter(([, r]) => r.expiresAt <= command.now)
    .map(([reservationId, r]): BudgetEvent => ({
      type: 'budget.reservation-expired',
      data: { budgetId: s.budgetId, reservationId, releasedMicros: str(r.amount), at: command.now },
    }));

/** A held reservation is given back on request; one not held decides nothing. */
const releaseReservation: OnBudget<'release-reservation'> = (command, s) => {
  const held = s.reservations[command.reservationId];
  if (!held) return [];
  return [
    {
      type: 'budget.reservation-released',
      data: { budgetId: s.budgetId, reservationId: command.reservationId, releasedMicros: str(held.amount), ...(command.reason ? { reason: command.reason } : {}), at: command.now },
    },
  ];
};

/** A pause is linked to one approval request, the first. */
const recordApprovalRequest: OnBudget<'record-approval-request'> = (command, s) => {
  if (s.status !== 'paused' || s.approvalId !== undefined) return [];
  return [{ type: 'budget.approval-requested', data: { budgetId: s.budgetId, approvalId: command.approvalId, team: command.team, at: command.now } }];
};

/** Only a paused budget is resolved: approve resumes it with the limit raised (by the proposed top-up unless told), deny stops it. */
const resolvePause: OnBudget<'resolve-pause'> = (command, s) => {
  if (s.status !== 'paused') {
    throw new HeadspaceError(ErrorCodes.budgetNotPaused, `Budget "${s.budgetId}" is ${s.status}, not paused`, { field: 'budgetId' });
  }
  const approvalId = command.approvalId ?? s.approvalId;
  if (command.decision === 'deny') {
    return [
      {
        type: 'budget.stopped',
        data: { budgetId: s.budgetId, resolvedBy: command.resolvedBy, ...(command.reason ? { reason: command.reason } : {}), ...(approvalId ? { approvalId } : {}), at: command.now },
      },
    ];
  }
  const added = command.addMicros ?? s.proposedAdd;
  return [
    {
      type: 'budget.resumed',
      data: { budgetId: s.budgetId, addedMicros: str(added), limitMicros: str((s.limit ?? 0n) + added), resolvedBy: command.resolvedBy, ...(approvalId ? { approvalId } : {}), at: command.now },
    },
  ];
};

/** Every command but set-budget needs the budget, and decides in its current period: a new one starts first. */
const inCurrentPeriod =
  <C extends Exclude<BudgetCommand, SetBudget>>(decide: (command: C, budget: ActiveBudget) => BudgetEvent[]) =>
  (command: C, state: BudgetState): BudgetEvent[] => {
    const current = mustExist(state);
    const rolled = rollover(current, command.now);
    return [...rolled, ...decide(command, rolled.reduce(evolve, current as BudgetState) as ActiveBudget)];
  };

const decide = decideByType<BudgetCommand, BudgetState, BudgetEvent>({
  'set-budget': setBudget,
  reserve: inCurrentPeriod(reserve),
  settle: inCurrentPeriod(settle),
  'expire-reservations': inCurrentPeriod(expireReservations),
  'release-reservation': inCurrentPeriod(releaseReservation),
  'record-approval-request': inCurrentPeriod(recordApprovalRequest),
  'resolve-pause': inCurrentPeriod(resolvePause),
});

export const budgetDecider: Decider<BudgetCommand, BudgetState, BudgetEvent> = {
  initialState: () => ({ status: 'none' }),
  decide,
  evolve,
};
