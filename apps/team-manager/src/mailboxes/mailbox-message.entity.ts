import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { InboxMessage } from '@headspace/contracts';

/** A row of `mailbox_messages`: one message in one recipient's inbox (mailbox.projection.ts; migrations/0002_mailboxes.sql). */
export const MailboxMessage = defineEntity({
  name: 'MailboxMessage',
  tableName: 'mailbox_messages',
  properties: {
    team: p.text().primary(),
    recipient: p.text().primary(),
    messageId: p.uuid().primary(),
    inboxVersion: p.bigint('string'),
    sender: p.text(),
    type: p.text().$type<InboxMessage['type']>(),
    visibility: p.text().$type<InboxMessage['visibility']>(),
    peerTo: p.text().nullable(),
    body: p.text().nullable(),
    summary: p.text().nullable(),
    topic: p.text().$type<NonNullable<InboxMessage['topic']>>().nullable(),
    requestId: p.text().nullable(),
    approve: p.boolean().nullable(),
    reason: p.text().nullable(),
    suppressAutoReply: p.boolean().nullable(),
    sentAt: p.datetime(),
    readAt: p.datetime().nullable(),
  },
});
export type MailboxMessage = InferEntity<typeof MailboxMessage>;
