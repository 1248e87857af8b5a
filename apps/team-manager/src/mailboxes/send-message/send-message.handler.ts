import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { inboxStreamId, mailboxStreamId, sendMessage, type EventData, type messageDelivered } from '@headspace/contracts';
import { handleCommand, idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { mailboxDecider, type MailboxEvent } from '../mailbox.decider';
import { inboxOf, MailboxWriter } from '../mailbox-writer';

type Reply = z.output<typeof sendMessage.response>;
type Delivered = EventData<typeof messageDelivered>;

/**
 * `hs.cmd.team-manager.send-message`: direct, broadcast, shutdown request/response and idle
 * notification. Decides against the team's mailbox registry (read-your-writes: who has an inbox,
 * which shutdown requests are open) and appends the copies to the recipients' inboxes.
 */
@Controller()
export class SendMessageHandler {
  constructor(private readonly writer: MailboxWriter) {}

  @MessagePattern(sendMessage)
  async handle(@Payload() request: z.output<typeof sendMessage.request>, @Ctx() ctx: RequestContext): Promise<Reply> {
    const commandId = ctx.commandId ?? randomUUID();
    const messageId = idFromCommand(commandId, `message:${request.team}`);
    const requestId =
      request.type === 'shutdown_request' && request.requestId ? request.requestId : idFromCommand(commandId, `shutdown-request:${request.team}`);
    const command = { type: 'send-message' as const, request, messageId, requestId, now: new Date().toISOString() };
    const { events } = await handleCommand(this.writer.store, mailboxDecider, mailboxStreamId(request.team), command, { ...ctx, commandId }, {
      before: this.writer.withTeamFacts(request.team),
      route: inboxOf(request.team),
      // A direct message leaves nothing on the registry: its first attempt's copies are found in the inboxes.
      prior: async ({ state }) => {
        const candidates = [mailboxStreamId(request.team), ...[...state.inboxes.keys()].map((member) => inboxStreamId(request.team, member))];
        const found = await this.writer.priorEvents(commandId, candidates);
        return found.length > 0 ? (found as MailboxEvent[]) : null;
      },
    });
    return replyFrom(messageId, events.flatMap((e) => (e.type === 'mailbox.message-delivered' ? [e.data] : [])));
  }
}

/** The same for the first answer and a retry's: nothing in it may tell them apart. */
function replyFrom(messageId: string, delivered: Delivered[]): Reply {
  const full = delivered.filter((d) => d.visibility === 'full');
  const requestId = full.find((d) => d.type === 'shutdown_request')?.requestId;
  const idle = full.find((d) => d.type === 'idle_notification');
  return {
    messageId,
    recipients: full.map((d) => d.recipient),
    ...(requestId ? { requestId } : {}),
    ...(idle ? { suppressAutoReply: idle.suppressAutoReply ?? false } : {}),
  };
}
