import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { peekUnread } from '@headspace/contracts';
import { foldEvents } from '@headspace/event-store';
import type { z } from 'zod';
import { inboxDecider } from '../inbox.decider';
import { MailboxWriter } from '../mailbox-writer';
import { reply } from '../take-unread/take-unread.handler';

/**
 * `hs.qry.team-manager.peek-unread`: the unread queue as take-unread would return it, without
 * marking anything read — one indexed read in the usual case (the inbox is known to the
 * projection). An agent runtime asks it alongside its budget check, every turn.
 */
@Controller()
export class PeekUnreadHandler {
  constructor(private readonly writer: MailboxWriter) {}

  @MessagePattern(peekUnread)
  async handle(@Payload() request: z.output<typeof peekUnread.request>): Promise<z.output<typeof peekUnread.response>> {
    const inbox = await this.writer.unreadSince(request.team, request.memberId);
    return reply(foldEvents(inboxDecider, inbox.events).unread, inbox.version.toString());
  }
}
