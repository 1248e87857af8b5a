import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { inboxStreamId, takeUnread, type InboxMessage } from '@headspace/contracts';
import { COMMAND_RETRY, foldEvents, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { inboxDecider, toInboxMessage, type InboxEvent } from '../inbox.decider';
import { MailboxWriter } from '../mailbox-writer';
import { renderTeammateMessages } from '../teammate-message';

type Reply = z.output<typeof takeUnread.response>;

/**
 * `hs.cmd.team-manager.take-unread`: the member's unread queue for its next inference, marked read
 * in the same step — all of it, or (with `throughVersion`, after a peek) the copies up to that
 * inbox version. Decided against the inbox stream (never the lagging projection) and appended
 * with the exact version read: a copy delivered meanwhile fails the append and the take re-runs,
 * so each copy is returned exactly once.
 */
@Controller()
export class TakeUnreadHandler {
  constructor(private readonly writer: MailboxWriter) {}

  @MessagePattern(takeUnread)
  handle(@Payload() request: z.output<typeof takeUnread.request>, @Ctx() ctx: RequestContext): Promise<Reply> {
    const commandId = ctx.commandId ?? randomUUID();
    // Under a stream of sends a take may lose a few races in a row: allow more attempts than a plain command.
    return withRetry(() => this.attempt(request, ctx, commandId), { ...COMMAND_RETRY, maxAttempts: 10 });
  }

  private async attempt(request: z.output<typeof takeUnread.request>, ctx: RequestContext, commandId: string): Promise<Reply> {
    const streamId = inboxStreamId(request.team, request.memberId);
    const [prior, inbox] = await Promise.all([this.writer.priorInStream(commandId, streamId), this.writer.unreadSince(request.team, request.memberId)]);
    if (prior) return this.replay(streamId, commandId);
    const asked = request.throughVersion === undefined ? inbox.version : BigInt(request.throughVersion);
    const through = asked < inbox.version ? asked : inbox.version;
    const state = foldEvents(
      inboxDecider,
      inbox.events.filter((e) => e.version <= through),
    );
    const events = inboxDecider.decide({ type: 'take-unread', team: request.team, memberId: request.memberId, throughVersion: through, now: new Date().toISOString() }, state);
    if (events.length > 0) {
      // Something is unread, so the stream exists; the exact version makes a concurrent delivery retry the take.
      await this.writer.store.append(streamId, events, { expected: inbox.version, context: { ...ctx, commandId } });
    }
    return reply(state.unread, through.toString());
  }

  /** A retried take returns what the first one took (rare: reads the whole inbox). */
  private async replay(streamId: string, commandId: string): Promise<Reply> {
    const history = (await this.writer.store.readStream(streamId)) as Array<RecordedEvent & InboxEvent>;
    const marker = history.find((e) => e.metadata.commandId === commandId);
    const ids = marker?.type === 'mailbox.messages-read' ? new Set(marker.data.messageIds) : new Set<string>();
    const messages = history.flatMap((e) => (e.type === 'mailbox.message-delivered' && ids.has(e.data.messageId) ? [toInboxMessage(e.data)] : []));
    return reply(messages, marker?.type === 'mailbox.messages-read' ? marker.data.throughVersion : '0');
  }
}

export function reply(messages: InboxMessage[], throughVersion: string): Reply {
  return { messages, rendered: renderTeammateMessages(messages), throughVersion };
}
