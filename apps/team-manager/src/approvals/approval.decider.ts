import {
  ErrorCodes,
  HeadspaceError,
  type approvalDecided,
  type approvalKinds,
  type approvalRequested,
  type approvalTimedOut,
  type EventData,
} from '@headspace/contracts';
import { decideByType, type Decider } from '@headspace/event-store';

export type ApprovalEvent =
  | { type: 'approval.requested'; data: EventData<typeof approvalRequested> }
  | { type: 'approval.timed-out'; data: EventData<typeof approvalTimedOut> }
  | { type: 'approval.decided'; data: EventData<typeof approvalDecided> };

type Answer = 'approve' | 'deny';
type Kind = (typeof approvalKinds)[number];

export type ApprovalState =
  | { status: 'none' }
  | {
      status: 'pending' | 'decided';
      approvalId: string;
      team: string;
      kind: Kind;
      defaultAnswer: Answer;
      expiresAt: string;
      decisionSource?: 'answer' | 'timeout';
    };

export interface RequestApproval {
  type: 'request-approval';
  approvalId: string;
  team: string;
  kind: Kind;
  requester: string;
  summary: string;
  payload: Record<string, unknown>;
  timeoutMs: number;
  defaultAnswer: Answer;
  now: string;
}
export interface AnswerApproval {
  type: 'answer-approval';
  approvalId: string;
  decision: Answer;
  reason?: string;
  answeredBy: string;
  now: string;
}
/** From the sweeper: applies the default answer once the timeout has passed (nothing before, nothing after a decision). */
export interface TimeOutApproval {
  type: 'time-out';
  approvalId: string;
  now: string;
}

export type ApprovalCommand = RequestApproval | AnswerApproval | TimeOutApproval;

/** An approval is requested once per id (a repeat decides nothing), expiring `timeoutMs` after it. */
function requestApproval(command: RequestApproval, state: ApprovalState): ApprovalEvent[] {
  if (state.status !== 'none') return [];
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
        expiresAt: new Date(Date.parse(command.now) + command.timeoutMs).toISOString(),
      },
    },
  ];
}

/** Only a pending approval is answered; a decided one says whether an answer or its timeout got there first. */
function answerApproval(command: AnswerApproval, state: ApprovalState): ApprovalEvent[] {
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

/** A pending approval past its expiry takes its default answer; before that, or once decided, nothing happens. */
function timeOut(command: TimeOutApproval, state: ApprovalState): ApprovalEvent[] {
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
  decide: decideByType<ApprovalCommand, ApprovalState, ApprovalEvent>({ 'request-approval': requestApproval, 'answer-approval': answerApproval, 'time-out': timeOut }),
  evolve,
};
