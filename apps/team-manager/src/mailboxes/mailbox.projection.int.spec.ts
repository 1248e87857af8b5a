import { randomUUID } from 'node:crypto';
import { inboxStreamId, mailboxStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { teamManagerProjectionSpec } from '../testing/projection-store';
import { MailboxProjection } from './mailbox.projection';

let given: Awaited<ReturnType<typeof teamManagerProjectionSpec<MailboxProjection>>>;
beforeAll(async () => (given = await teamManagerProjectionSpec('mailboxproj', (store) => new MailboxProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const newTeam = () => `t${randomUUID().slice(0, 8)}`;
const T0 = '2025-01-01T10:00:00.000Z';
const SUMMARY = 'please review the parser change today';

const opened = (team: string, memberId: string, role: 'lead' | 'member', at = T0): NewEvent => ({ type: 'mailbox.inbox-opened', data: { team, memberId, role, openedAt: at } });
const delivered = (team: string, recipient: string, messageId: string, extra: Record<string, unknown> = {}): NewEvent => ({
  type: 'mailbox.message-delivered',
  data: { messageId, team, recipient, from: 'con', type: 'message', visibility: 'full', body: 'The parser change is ready.', summary: SUMMARY, sentAt: '2025-01-01T10:01:00.000Z', ...extra },
});
const read = (team: string, memberId: string, messageIds: string[], throughVersion: number, readAt: string): NewEvent => ({
  type: 'mailbox.messages-read',
  data: { team, memberId, messageIds, throughVersion: String(throughVersion), readAt },
});

const inboxesOf = (team: string) => ({ sql: 'SELECT * FROM team_manager.mailbox_inboxes WHERE team = $1 ORDER BY member_id', params: [team] });
const messagesOf = (team: string) => ({ sql: 'SELECT * FROM team_manager.mailbox_messages WHERE team = $1 ORDER BY recipient, inbox_version', params: [team] });
/** Each copy's read time beside its recipient's read-through version. */
const readStateOf = (team: string) => ({
  sql: `SELECT m.message_id, m.read_at, i.read_through_version FROM team_manager.mailbox_messages m
          JOIN team_manager.mailbox_inboxes i ON i.team = m.team AND i.member_id = m.recipient WHERE m.team = $1 ORDER BY m.recipient, m.inbox_version`,
  params: [team],
});

describe('mailbox projection', () => {
  it('an opened inbox is listed with its role, nothing read yet; opening it again keeps the first opening', async () => {
    const team = newTeam();
    await spec()
      .given(inStream(mailboxStreamId(team), opened(team, 'team-lead', 'lead'), opened(team, 'con', 'member')))
      .when(inStream(mailboxStreamId(team), opened(team, 'con', 'lead', '2025-01-01T11:00:00.000Z')))
      .then(inboxesOf(team), [
        { member_id: 'con', role: 'member', opened_at: new Date(T0), read_through_version: '0' },
        { member_id: 'team-lead', role: 'lead', opened_at: new Date(T0), read_through_version: '0' },
      ]);
  });

  it('a delivered copy is a row of its recipient, ordered by its inbox stream version and unread', async () => {
    const team = newTeam();
    const [first, second] = [randomUUID(), randomUUID()];
    await spec()
      .when(
        inStream(inboxStreamId(team, 'al'), delivered(team, 'al', first, { topic: 'question' }), delivered(team, 'al', second, { from: 'may', type: 'broadcast' })),
        inStream(inboxStreamId(team, 'team-lead'), delivered(team, 'team-lead', first, { visibility: 'summary', peerTo: 'al', body: null })),
      )
      .then(messagesOf(team), [
        { recipient: 'al', message_id: first, inbox_version: '1', sender: 'con', type: 'message', visibility: 'full', peer_to: null, body: 'The parser change is ready.', summary: SUMMARY, topic: 'question', read_at: null },
        { recipient: 'al', message_id: second, inbox_version: '2', sender: 'may', type: 'broadcast', topic: null, read_at: null },
        { recipient: 'team-lead', message_id: first, inbox_version: '1', visibility: 'summary', peer_to: 'al', body: null, sent_at: new Date('2025-01-01T10:01:00.000Z') },
      ]);
  });

  it('a shutdown request and its answer keep their protocol fields', async () => {
    const team = newTeam();
    const [request, answer] = [randomUUID(), randomUUID()];
    await spec()
      .when(
        inStream(inboxStreamId(team, 'al'), delivered(team, 'al', request, { from: 'team-lead', type: 'shutdown_request', requestId: 'sd-1', summary: undefined })),
        inStream(
          inboxStreamId(team, 'team-lead'),
          delivered(team, 'team-lead', answer, { from: 'al', type: 'shutdown_response', requestId: 'sd-1', approve: false, reason: 'mid-refactor', suppressAutoReply: true }),
        ),
      )
      .then(messagesOf(team), [
        { recipient: 'al', type: 'shutdown_request', request_id: 'sd-1', approve: null, reason: null, summary: null, suppress_auto_reply: null },
        { recipient: 'team-lead', type: 'shutdown_response', request_id: 'sd-1', approve: false, reason: 'mid-refactor', suppress_auto_reply: true },
      ]);
  });

  it('a copy delivered twice under the same message id stays one row, at its first inbox version', async () => {
    const team = newTeam();
    const id = randomUUID();
    await spec()
      .given(inStream(inboxStreamId(team, 'al'), delivered(team, 'al', id)))
      .when(inStream(inboxStreamId(team, 'al'), delivered(team, 'al', id, { body: 'again' })))
      .then(messagesOf(team), [{ message_id: id, inbox_version: '1', body: 'The parser change is ready.' }]);
  });

  it('a read marker stamps the copies it names and moves the inbox read-through version', async () => {
    const team = newTeam();
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    await spec()
      .given(
        inStream(mailboxStreamId(team), opened(team, 'al', 'member')),
        inStream(inboxStreamId(team, 'al'), delivered(team, 'al', first), delivered(team, 'al', second), delivered(team, 'al', third)),
      )
      .when(inStream(inboxStreamId(team, 'al'), read(team, 'al', [first, second], 2, '2025-01-01T10:05:00.000Z')))
      .then(readStateOf(team), [
        { message_id: first, read_at: new Date('2025-01-01T10:05:00.000Z'), read_through_version: '2' },
        { message_id: second, read_at: new Date('2025-01-01T10:05:00.000Z'), read_through_version: '2' },
        { message_id: third, read_at: null, read_through_version: '2' },
      ]);
  });

  it('a later marker naming read copies again keeps their first read time and never moves the read-through version back', async () => {
    const team = newTeam();
    const [first, second] = [randomUUID(), randomUUID()];
    await spec()
      .given(
        inStream(mailboxStreamId(team), opened(team, 'al', 'member')),
        inStream(inboxStreamId(team, 'al'), delivered(team, 'al', first), delivered(team, 'al', second), read(team, 'al', [first, second], 2, '2025-01-01T10:05:00.000Z')),
      )
      .when(inStream(inboxStreamId(team, 'al'), read(team, 'al', [first], 1, '2025-01-01T10:09:00.000Z')))
      .then(readStateOf(team), [
        { message_id: first, read_at: new Date('2025-01-01T10:05:00.000Z'), read_through_version: '2' },
        { message_id: second, read_at: new Date('2025-01-01T10:05:00.000Z'), read_through_version: '2' },
      ]);
  });
});
