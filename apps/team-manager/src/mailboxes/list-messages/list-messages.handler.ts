import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listMessages } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { MailboxMessage } from '../mailbox-message.entity';

/** `hs.qry.team-manager.list-messages`: a member's messages from the mailbox projection, in inbox order (UI preview). */
@Controller()
export class ListMessagesHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listMessages)
  async handle(@Payload() request: z.output<typeof listMessages.request>): Promise<z.output<typeof listMessages.response>> {
    const { team, memberId, unreadOnly, limit } = request;
    // The newest `limit` messages, answered oldest first (inbox order).
    const latest = await this.reads.rows(MailboxMessage, { team, recipient: memberId, ...(unreadOnly ? { readAt: null } : {}) }, { orderBy: [{ inboxVersion: 'desc' }], limit });
    const rows = latest.reverse();
    const optional = <T>(key: string, value: T | null | undefined) => (value == null ? {} : { [key]: value });
    return {
      messages: rows.map((r) => ({
        messageId: r.messageId,
        from: r.sender,
        type: r.type,
        visibility: r.visibility,
        body: r.body ?? null,
        sentAt: r.sentAt.toISOString(),
        ...optional('peerTo', r.peerTo),
        ...optional('summary', r.summary),
        ...optional('topic', r.topic),
        ...optional('requestId', r.requestId),
        ...optional('approve', r.approve),
        ...optional('reason', r.reason),
        ...optional('suppressAutoReply', r.suppressAutoReply),
        read: r.readAt != null,
      })),
    };
  }
}
