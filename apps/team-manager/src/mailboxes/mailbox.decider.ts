import {
  ErrorCodes,
  HeadspaceError,
  type EventData,
  type inboxOpened,
  type messageDelivered,
  type sendMessage,
  type shutdownAnswered,
  type shutdownRequested,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';
import type { z } from 'zod';

/**
 * The team mailbox registry (stream `mailbox-<team>`): open inboxes and their roles, and the
 * shutdown protocol's open requests. Every send decides against it (small: one event per inbox
 * and per shutdown request/answer), and its events route to two kinds of stream: registry events
 * stay here, each `mailbox.message-delivered` goes to its recipient's inbox stream.
 *
 * Why a stream per inbox for the copies rather than one team stream with the recipients in the
 * event: the unread queue must be taken atomically against concurrent sends (decided against the
 * inbox's own stream and version), and a busy team must not make every send re-read every
 * message of the team; plain sends commute, so they append to the inbox without a version check
 * (nothing they decide on can be invalidated: inboxes are never closed).
 */
export type MailboxEvent =
  | { type: 'mailbox.inbox-opened'; data: EventData<typeof inboxOpened> }
  | { type: 'mailbox.message-delivered'; data: EventData<typeof messageDelivered> }
  | { type: 'mailbox.shutdown-requested'; data: EventData<typeof shutdownRequested> }
  | { type: 'mailbox.shutdown-answered'; data: EventData<typeof shutdownAnswered> };

export interface MailboxState {
  inboxes: ReadonlyMap<string, 'lead' | 'member'>;
  lead?: string;
  /** requestId → who asked whom; removed when answered. */
  openRequests: ReadonlyMap<string, { from: string; to: string }>;
  /** The team aggregate's shutdown, read from the team stream by the writer (no mailbox event carries it). */
  teamShutdown?: TeamShutdownFacts;
}

export interface TeamShutdownFacts {
  /** A team shutdown was accepted and has not been aborted (it is under way or done). */
  underway: boolean;
  /** The request ids of every team shutdown: their mailbox copies follow the team's protocol, not their own answers. */
  requestIds: ReadonlySet<string>;
}

export interface OpenInbox {
  type: 'open-inbox';
  team: string;
  memberId: string;
  role: 'lead' | 'member';
  now: string;
}

export type SendRequest = z.output<typeof sendMessage.request>;

export interface SendMessage {
  type: 'send-message';
  request: SendRequest;
  /** Derived from the command id by the handler. */
  messageId: string;
  requestId: string;
  now: string;
}

export type MailboxCommand = OpenInbox | SendMessage;

type Delivered = EventData<typeof messageDelivered>;

const fail = (code: string, message: string, field: string) => new HeadspaceError(code, message, { field });

/** An inbox opens once per member, in one role; a team has one lead inbox. Opening it again in the same role decides nothing. */
function openInbox(command: OpenInbox, state: MailboxState): MailboxEvent[] {
  const existing = state.inboxes.get(command.memberId);
  if (existing === command.role) return [];
  if (existing) {
    throw fail(ErrorCodes.mailboxRoleConflict, `"${command.memberId}" already has an inbox as ${existing}`, 'role');
  }
  if (command.role === 'lead' && state.lead) {
    throw fail(ErrorCodes.mailboxLeadAlreadyExists, `Team "${command.team}" already has a lead inbox ("${state.lead}")`, 'role');
  }
  return [{ type: 'mailbox.inbox-opened', data: { team: command.team, memberId: command.memberId, role: command.role, openedAt: command.now } }];
}

/** What every kind of send decides with: the registry, the command, and its copy and addressee rules. */
interface Sending {
  state: MailboxState;
  command: SendMessage;
  deliver: (recipient: string, fields: Omit<Delivered, 'messageId' | 'team' | 'from' | 'sentAt' | 'recipient'>) => MailboxEvent;
  /** Another member with an inbox. */
  addressee: (to: string) => string;
}

const topicOf = (r: Pick<Delivered, 'topic'>): Pick<Delivered, 'topic'> => (r.topic ? { topic: r.topic } : {});

const sends = decideByType<SendRequest, Sending, MailboxEvent>({
  /** A DM goes to its recipient in full; between two members other than the lead, the lead sees that it happened, as its summary only. */
  message: (r, { state, deliver, addressee }) => {
    const to = addressee(r.to);
    const events = [deliver(to, { type: 'message', visibility: 'full', body: r.body, summary: r.summary, ...topicOf(r) })];
    if (state.lead && state.lead !== r.from && state.lead !== to) {
      events.push(deliver(state.lead, { type: 'message', visibility: 'summary', peerTo: to, body: null, summary: r.summary, ...topicOf(r) }));
    }
    return events;
  },

  /** To every open inbox but the sender's, in a fixed order (the appends lock inbox streams in this order). */
  broadcast: (r, { state, deliver }) =>
    [...state.inboxes.keys()]
      .filter((member) => member !== r.from)
      .sort()
      .map((member) => deliver(member, { type: 'broadcast', visibility: 'full', body: r.body, summary: r.summary, ...topicOf(r) })),

  /** Only the lead asks a member to shut down; the request stays open until that member answers. */
  shutdown_request: (r, { state, command, deliver, addressee }) => {
    if (state.lead !== r.from) throw fail(ErrorCodes.mailboxNotAllowed, 'Only the team lead sends shutdown requests', 'from');
    const to = addressee(r.to);
    return [
      { type: 'mailbox.shutdown-requested', data: { team: r.team, requestId: command.requestId, from: r.from, to, requestedAt: command.now } },
      deliver(to, {
        type: 'shutdown_request',
        visibility: 'full',
        requestId: command.requestId,
        body: r.body ?? 'The team lead asks you to shut down: approve when your work is saved, or reject with a reason.',
        ...(r.summary ? { summary: r.summary } : {}),
      }),
    ];
  },

  /** Only the member an open request was sent to answers it, once; the answer goes back to whoever asked. */
  shutdown_response: (r, { state, command, deliver }) => {
    const open = state.openRequests.get(r.requestId);
    if (!open || open.to !== r.from) {
      throw fail(ErrorCodes.mailboxUnknownRequest, `No open shutdown request "${r.requestId}" was sent to "${r.from}"`, 'requestId');
    }
    const reason = r.reason === undefined ? {} : { reason: r.reason };
    return [
      { type: 'mailbox.shutdown-answered', data: { team: r.team, requestId: r.requestId, from: r.from, to: open.from, approve: r.approve, ...reason, answeredAt: command.now } },
      deliver(open.from, {
        type: 'shutdown_response',
        visibility: 'full',
        requestId: r.requestId,
        approve: r.approve,
        ...reason,
        body: r.body ?? (r.approve ? 'Shutdown approved.' : `Shutdown rejected: ${r.reason}`),
      }),
    ];
  },

  /**
   * A member (never the lead) tells the lead it is idle. While the lead waits for shutdown answers an
   * idle member is expected: recorded, but flagged so no one answers it. A team shutdown counts from
   * the moment it was accepted (before the bridge delivers its requests) until it is aborted, whether
   * or not members answered through their mailboxes; the lead's own mailbox requests while open.
   */
  idle_notification: (r, { state, deliver }) => {
    if (!state.lead) throw fail(ErrorCodes.mailboxLeadNotFound, `Team "${r.team}" has no lead inbox to notify`, 'from');
    if (state.lead === r.from) throw fail(ErrorCodes.mailboxNotAllowed, 'The lead does not notify itself of idleness', 'from');
    const lead = state.lead;
    const team = state.teamShutdown;
    const shuttingDown =
      team?.underway === true || [...state.openRequests].some(([requestId, request]) => request.from === lead && !team?.requestIds.has(requestId));
    return [
      deliver(lead, {
        type: 'idle_notification',
        visibility: 'full',
        body: r.body ?? `${r.from} is idle.`,
        ...(r.summary ? { summary: r.summary } : {}),
        suppressAutoReply: shuttingDown,
      }),
    ];
  },
});

/** Only a member with an inbox sends; what it sends decides by its kind. */
function send(command: SendMessage, state: MailboxState): MailboxEvent[] {
  const { request: r, messageId, now } = command;
  if (!state.inboxes.has(r.from)) throw fail(ErrorCodes.mailboxUnknownSender, `"${r.from}" has no inbox in team "${r.team}"`, 'from');
  const base = { messageId, team: r.team, from: r.from, sentAt: now };
  return sends(r, {
    state,
    command,
    deliver: (recipient, fields) => ({ type: 'mailbox.message-delivered', data: { ...base, recipient, ...fields } }),
    addressee: (to) => {
      if (to === r.from) throw fail(ErrorCodes.mailboxRecipientInvalid, 'A member cannot message itself', 'to');
      if (!state.inboxes.has(to)) throw fail(ErrorCodes.mailboxUnknownRecipient, `"${to}" has no inbox in team "${r.team}"`, 'to');
      return to;
    },
  });
}

export const mailboxDecider: Decider<MailboxCommand, MailboxState, MailboxEvent> = {
  initialState: () => ({ inboxes: new Map(), openRequests: new Map() }),
  decide: decideByType<MailboxCommand, MailboxState, MailboxEvent>({ 'open-inbox': openInbox, 'send-message': send }),
  evolve: evolveByType<MailboxState, MailboxEvent>({
    'mailbox.inbox-opened': (state, { data }) => ({
      ...state,
      inboxes: new Map(state.inboxes).set(data.memberId, data.role),
      lead: data.role === 'lead' ? data.memberId : state.lead,
    }),
    'mailbox.shutdown-requested': (state, { data }) => ({ ...state, openRequests: new Map(state.openRequests).set(data.requestId, { from: data.from, to: data.to }) }),
    'mailbox.shutdown-answered': (state, { data }) => {
      const openRequests = new Map(state.openRequests);
      openRequests.delete(data.requestId);
      return { ...state, openRequests };
    },
  }),
};
