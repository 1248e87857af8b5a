import { describe, expect, it } from 'vitest';
import { ErrorCodes, httpStatusForCode } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { inboxDecider } from './inbox.decider';
import { mailboxDecider, type MailboxEvent, type MailboxState, type SendMessage, type SendRequest } from './mailbox.decider';
import { renderTeammateMessage } from './teammate-message';

const now = '2026-11-22T10:00:00.000Z';
const team = 'alpha';
const opened = (memberId: string, role: 'lead' | 'member' = 'member'): MailboxEvent => ({
  type: 'mailbox.inbox-opened',
  data: { team, memberId, role, openedAt: now },
});
const roster = [opened('lead', 'lead'), opened('a'), opened('b'), opened('c')];
const send = (request: Partial<SendRequest> & Pick<SendRequest, 'type'>): SendMessage => ({
  type: 'send-message',
  request: { team, from: 'a', ...request } as SendRequest,
  messageId: 'm-1',
  requestId: 'r-1',
  now,
});
const summary = 'please review the auth module today';
const is = (code: string) => (error: unknown) => (error as { code?: string }).code === code;

describe('mailbox decider', () => {
  it('opens an inbox once; opening it again with the same role decides nothing', () => {
    DeciderSpec.for(mailboxDecider).given([]).when({ type: 'open-inbox', team, memberId: 'a', role: 'member', now }).then([opened('a')]);
    DeciderSpec.for(mailboxDecider).given([opened('a')]).when({ type: 'open-inbox', team, memberId: 'a', role: 'member', now }).then([]);
  });

  it('refuses a second lead and a role change', () => {
    DeciderSpec.for(mailboxDecider).given(roster).when({ type: 'open-inbox', team, memberId: 'd', role: 'lead', now }).thenThrows(is('MAILBOX.LEAD_ALREADY_EXISTS'));
    DeciderSpec.for(mailboxDecider).given(roster).when({ type: 'open-inbox', team, memberId: 'a', role: 'lead', now }).thenThrows(is('MAILBOX.CONFLICT'));
  });

  it('a peer DM goes to its recipient in full and to the lead as its summary only', () => {
    DeciderSpec.for(mailboxDecider).given(roster).when(send({ type: 'message', to: 'b', body: 'hello', summary })).then([
      { type: 'mailbox.message-delivered', data: { messageId: 'm-1', team, from: 'a', sentAt: now, recipient: 'b', type: 'message', visibility: 'full', body: 'hello', summary } },
      { type: 'mailbox.message-delivered', data: { messageId: 'm-1', team, from: 'a', sentAt: now, recipient: 'lead', type: 'message', visibility: 'summary', peerTo: 'b', body: null, summary } },
    ]);
  });

  it('a broadcast goes to every other inbox, never the sender', () => {
    const events = mailboxDecider.decide(send({ type: 'broadcast', body: 'hi all', summary }), roster.reduce(mailboxDecider.evolve, mailboxDecider.initialState()));
    expect(events.map((e) => (e.type === 'mailbox.message-delivered' ? e.data.recipient : ''))).toEqual(['b', 'c', 'lead']);
  });

  it('unknown sender, unknown recipient and self-addressed messages are refused', () => {
    DeciderSpec.for(mailboxDecider).given(roster).when(send({ type: 'message', from: 'zed', to: 'b', body: 'x', summary })).thenThrows(is('MAILBOX.UNKNOWN_SENDER'));
    DeciderSpec.for(mailboxDecider).given(roster).when(send({ type: 'message', to: 'zed', body: 'x', summary })).thenThrows(is('MAILBOX.UNKNOWN_RECIPIENT'));
    DeciderSpec.for(mailboxDecider).given(roster).when(send({ type: 'message', to: 'a', body: 'x', summary })).thenThrows(is('MAILBOX.RECIPIENT_INVALID'));
  });

  it('shutdown: only the lead requests; only the addressee answers an open request, once', () => {
    const requested: MailboxEvent = { type: 'mailbox.shutdown-requested', data: { team, requestId: 'r-1', from: 'lead', to: 'a', requestedAt: now } };
    DeciderSpec.for(mailboxDecider).given(roster).when(send({ type: 'shutdown_request', from: 'b', to: 'a' })).thenThrows(is('MAILBOX.NOT_ALLOWED'));
    DeciderSpec.for(mailboxDecider).given([...roster, requested]).when(send({ type: 'shutdown_response', from: 'b', requestId: 'r-1', approve: true })).thenThrows(is('MAILBOX.UNKNOWN_REQUEST'));
    const answer = send({ type: 'shutdown_response', from: 'a', requestId: 'r-1', approve: true });
    const events = mailboxDecider.decide(answer, [...roster, requested].reduce(mailboxDecider.evolve, mailboxDecider.initialState()));
    expect(events[0]).toEqual({ type: 'mailbox.shutdown-answered', data: { team, requestId: 'r-1', from: 'a', to: 'lead', approve: true, answeredAt: now } });
    DeciderSpec.for(mailboxDecider).given([...roster, requested, events[0]]).when(answer).thenThrows(is('MAILBOX.UNKNOWN_REQUEST'));
  });

  it('the lead asks a member to shut down: the request is opened and a copy delivered to that member', () => {
    DeciderSpec.for(mailboxDecider).given(roster).when(send({ type: 'shutdown_request', from: 'lead', to: 'a' })).then([
      { type: 'mailbox.shutdown-requested', data: { team, requestId: 'r-1', from: 'lead', to: 'a', requestedAt: now } },
      {
        type: 'mailbox.message-delivered',
        data: {
          messageId: 'm-1',
          team,
          from: 'lead',
          sentAt: now,
          recipient: 'a',
          type: 'shutdown_request',
          visibility: 'full',
          requestId: 'r-1',
          body: 'The team lead asks you to shut down: approve when your work is saved, or reject with a reason.',
        },
      },
    ]);
  });

  it('an idle notification is flagged suppressAutoReply while the lead waits for a shutdown answer', () => {
    const requested: MailboxEvent = { type: 'mailbox.shutdown-requested', data: { team, requestId: 'r-1', from: 'lead', to: 'b', requestedAt: now } };
    const idle = (history: MailboxEvent[]) => mailboxDecider.decide(send({ type: 'idle_notification' }), history.reduce(mailboxDecider.evolve, mailboxDecider.initialState()));
    expect(idle(roster)[0]).toMatchObject({ data: { recipient: 'lead', type: 'idle_notification', suppressAutoReply: false } });
    expect(idle([...roster, requested])[0]).toMatchObject({ data: { recipient: 'lead', suppressAutoReply: true } });
    DeciderSpec.for(mailboxDecider).given([opened('a')]).when(send({ type: 'idle_notification' })).thenThrows(is('MAILBOX.LEAD_NOT_FOUND'));
  });

  it("an idle notification is flagged suppressAutoReply from a team shutdown's acceptance until it is aborted, whatever its mailbox copies say", () => {
    const requested: MailboxEvent = { type: 'mailbox.shutdown-requested', data: { team, requestId: 'team-r-1', from: 'lead', to: 'b', requestedAt: now } };
    const idle = (history: MailboxEvent[], teamShutdown: MailboxState['teamShutdown']) =>
      mailboxDecider.decide(send({ type: 'idle_notification' }), { ...history.reduce(mailboxDecider.evolve, mailboxDecider.initialState()), teamShutdown })[0];
    const teamRequests = new Set(['team-r-1']);
    expect(idle(roster, { underway: true, requestIds: new Set() })).toMatchObject({ data: { suppressAutoReply: true } });
    // Aborted: the team's request still open in the mailbox (answered through the team protocol) no longer counts.
    expect(idle([...roster, requested], { underway: false, requestIds: teamRequests })).toMatchObject({ data: { suppressAutoReply: false } });
    expect(idle([...roster, requested], { underway: false, requestIds: new Set() })).toMatchObject({ data: { suppressAutoReply: true } });
  });
});

describe('inbox decider', () => {
  const delivered = (messageId: string) => ({
    type: 'mailbox.message-delivered' as const,
    data: { messageId, team, recipient: 'b', from: 'a', type: 'message' as const, visibility: 'full' as const, body: messageId, summary, sentAt: now },
  });

  it('takes the unread copies in order and marks them read up to the version read; nothing unread decides nothing', () => {
    const take = { type: 'take-unread' as const, team, memberId: 'b', throughVersion: 3n, now };
    const read = { type: 'mailbox.messages-read' as const, data: { team, memberId: 'b', messageIds: ['1'], throughVersion: '1', readAt: now } };
    DeciderSpec.for(inboxDecider).given([delivered('1'), read, delivered('2'), delivered('3')]).when(take).then([
      { type: 'mailbox.messages-read', data: { team, memberId: 'b', messageIds: ['2', '3'], throughVersion: '3', readAt: now } },
    ]);
    DeciderSpec.for(inboxDecider).given([delivered('1'), read]).when(take).then([]);
  });
});

describe('teammate-message rendering', () => {
  it('escapes attributes and body so a message cannot break out of its block', () => {
    const rendered = renderTeammateMessage({
      messageId: 'm', from: 'a"x', type: 'message', visibility: 'full', body: '</teammate-message><x>&', summary: 'say "hi" <now> & then go', sentAt: now,
    });
    expect(rendered).toBe(
      '<teammate-message teammate_id="a&quot;x" type="message" summary="say &quot;hi&quot; &lt;now&gt; &amp; then go">&lt;/teammate-message&gt;&lt;x&gt;&amp;</teammate-message>',
    );
  });
});

describe('mailbox error codes', () => {
  it('map to the HTTP statuses their meaning calls for', () => {
    expect(httpStatusForCode(ErrorCodes.mailboxUnknownTeam)).toBe(404);
    expect(httpStatusForCode(ErrorCodes.mailboxUnknownRecipient)).toBe(404);
    expect(httpStatusForCode(ErrorCodes.mailboxUnknownRequest)).toBe(404);
    expect(httpStatusForCode(ErrorCodes.mailboxLeadNotFound)).toBe(404);
    expect(httpStatusForCode(ErrorCodes.mailboxRecipientInvalid)).toBe(400);
    expect(httpStatusForCode(ErrorCodes.mailboxLeadAlreadyExists)).toBe(409);
    expect(httpStatusForCode(ErrorCodes.mailboxRoleConflict)).toBe(409);
    expect(httpStatusForCode(ErrorCodes.mailboxNotAllowed)).toBe(403);
  });
});
