import { Module } from '@nestjs/common';
import { ListInboxesHandler } from './list-inboxes/list-inboxes.handler';
import { ListMessagesHandler } from './list-messages/list-messages.handler';
import { MailboxProjection } from './mailbox.projection';
import { MailboxWriter } from './mailbox-writer';
import { OpenInboxHandler } from './open-inbox/open-inbox.handler';
import { SendMessageHandler } from './send-message/send-message.handler';
import { PeekUnreadHandler } from './peek-unread/peek-unread.handler';
import { TakeUnreadHandler } from './take-unread/take-unread.handler';

/** Mailboxes: open inboxes, send (direct, broadcast, shutdown protocol, idle), take the unread queue, list; the mailbox projection. */
@Module({
  providers: [MailboxWriter, MailboxProjection],
  controllers: [OpenInboxHandler, SendMessageHandler, TakeUnreadHandler, PeekUnreadHandler, ListMessagesHandler, ListInboxesHandler],
  exports: [MailboxProjection],
})
export class MailboxesModule {}
