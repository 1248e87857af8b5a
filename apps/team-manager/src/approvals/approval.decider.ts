import {
  ErrorCodes,
  HeadspaceError,
  type approvalDecided,
  type approvalKinds,
  type approvalRequested,
  type approvalTimedOut,
  type EventData,
} from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';

export type ApprovalEvent =
  | { type: 'approval.requested'; data: EventData<typeof approvalRequested> }
  | { type: 'approval.timed-out'; data: EventData<typeof approvalTimedOut> }
  | { type: 'approval.decided'; data: EventData<typeof approvalDecided> };

type Answer = 'approve' | 'deny';

export type ApprovalState =
  | { status: 'none' }
  | {
      status: 'pending' | 'decided';
      approvalId: string;
      team: string;
      kind: (typeof approvalKinds)[number];
      defaultAnswer: Answer;
      expiresAt: string;
      decisionSource?: 'answer' | 'timeout';
    };

export type ApprovalCommand =
  | {
      type: 'request-approval';
      approvalId: string;
      team: string;
      kind: (typeof approvalKinds)[number];
      requester: string;
      summary: string;
      payload: Record<string, unknown>;
      timeoutMs: number;
      defaultAnswer: Answer;
      now: string;
    }
  | { type: 'answer-approval'; approvalId: string; decision: Answer; reason?: string; answeredBy: string; now: string }
  /** From the sweeper: applies the default answer once the timeout has passed (nothing before, nothing after a decision). */
  | { type: 'time-out'; approvalId: string; now: string };

function decide(command: ApprovalCommand, state: ApprovalState): ApprovalEvent[] {
  switch (command.type) {
    case 'request-approval': {
      if (state.status !== 'none') return [];
      const expiresAt = new Date(Date.parse(command.now) + command.timeoutMs).toISOString();
      return [
        {
          type: 'approval.requested',
          data: {
            approvalId: command.approvalId,
            team: command.team,
            kind: command.kind,
            requester: command.requester,
            summary: command.summary,
            payload: command.payload,
            defaultAnswer: command.defaultAnswer,
            timeoutMs: command.timeoutMs,
            requestedAt: command.now,
            expiresAt,
          },
        },
      ];
    }
    case 'answer-approval': {
      if (state.status === 'none') {
        throw new HeadspaceError(ErrorCodes.approvalNotFound, `No approval "${command.approvalId}"`, { field: 'approvalId' });
      }
      if (state.status === 'decided') {
        const timedOut = state.decisionSource === 'timeout';
        throw new HeadspaceError(
          timedOut ? ErrorCodes.approvalAlreadyTimedOut : ErrorCodes.approvalAlreadyAnswered,
          timedOut ? `Approval "${command.approvalId}" timed out and took its default answer` : `Approval "${command.approvalId}" is already answered`,
          { field: 'approvalId' },
        );
      }
      return [
        {
          type: 'approval.decided',
          data: {
            approvalId: state.approvalId,
            team: state.team,
            kind: state.kind,
            decision: command.decision,
            ...(command.reason === undefined ? {} : { reason: command.reason }),
            decidedBy: command.answeredBy,
            source: 'answer',
            decidedAt: command.now,
          },
        },
      ];
    }
    case 'time-out': {
      if (state.status !== 'pending' || Date.parse(command.now) < Date.parse(state.expiresAt)) return [];
      const base = { approvalId: state.approvalId, team: state.team, kind: state.kind };
      return [
        { type: 'approval.timed-out', data: { ...base, defaultAnswer: state.defaultAnswer, expiresAt: state.expiresAt, timedOutAt: command.now } },
        {
          type: 'approval.decided',
          data: { ...base, decision: state.defaultAnswer, reason: 'timed out: default answer applied', decidedBy: 'system:timeout', source: 'timeout', decidedAt: command.now },
        },
      ];
    }
  }
}

function evolve(state: ApprovalState, event: ApprovalEvent): ApprovalState {
  switch (event.type) {
    case 'approval.requested': {
      const d = event.data;
      return { status: 'pending', approvalId: d.approvalId, team: d.team, kind: d.kind, defaultAnswer: d.defaultAnswer, expiresAt: d.expiresAt };
    }
    case 'approval.decided':
      return state.status === 'none' ? state : { ...state, status: 'decided', decisionSource: event.data.source };
    default:
      return state;
  }
}

export const approvalDecider: Decider<ApprovalCommand, ApprovalState, ApprovalEvent> = {
  initialState: () => ({ status: 'none' }),
  decide,
  evolve,
};
