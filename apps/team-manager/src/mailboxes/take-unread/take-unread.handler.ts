import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, inboxStreamId, takeUnread, type InboxMessage } from '@headspace/contracts';
import { foldEvents, withRetry, type RecordedEvent } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { inboxDecider, toInboxMessage, type InboxEvent } from '../inbox.decider';
import { commandMetadata, isMailboxRetryable, MailboxWriter } from '../mailbox-writer';
import { renderTeammateMessages } from '../teammate-message';

type Reply = z.output<typeof takeUnread.response>;

/**
 * `hs.cmd.team-manager.take-unread`: the member's unread queue for its next inference, marked read
 * in the same step. Decided against the inbox stream (never the lagging projection) and appended
 * with the exact version read: a copy delivered meanwhile fails the append and the take re-runs,
 * so each copy is returned exactly once.
 */
@Injectable()
export class TakeUnreadHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly writer: MailboxWriter,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, takeUnread, (request, ctx) => this.handle(request, ctx));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  handle(request: z.output<typeof takeUnread.request>, ctx: RequestContext): Promise<Reply> {
    const commandId = ctx.commandId ?? randomUUID();
    // Under a stream of sends a take may lose a few races in a row: allow more attempts than a plain command.
    return withRetry(() => this.attempt(request, ctx, commandId), { maxAttempts: 10, retryOn: isMailboxRetryable });
  }

  private async attempt(request: z.output<typeof takeUnread.request>, ctx: RequestContext, commandId: string): Promise<Reply> {
    const { state: registry } = await this.writer.registry(request.team);
    if (!registry.inboxes.has(request.memberId)) {
      throw new HeadspaceError(ErrorCodes.mailboxUnknownMember, `"${request.memberId}" has no inbox in team "${request.team}"`, { field: 'memberId' });
    }
    const streamId = inboxStreamId(request.team, request.memberId);
    const store = this.writer.store;
    if (await this.writer.priorInStream(commandId, streamId)) {
      // A retried take returns what the first one took (rare: reads the whole inbox).
      const history = (await store.readStream(streamId)) as Array<RecordedEvent & InboxEvent>;
      const marker = history.find((e) => e.metadata.commandId === commandId);
      const ids = marker?.type === 'mailbox.messages-read' ? new Set(marker.data.messageIds) : new Set<string>();
      const messages = history.flatMap((e) => (e.type === 'mailbox.message-delivered' && ids.has(e.data.messageId) ? [toInboxMessage(e.data)] : []));
      return reply(messages, marker?.type === 'mailbox.messages-read' ? marker.data.throughVersion : '0');
    }

    // Copies up to the last read marker are read: start after it. The hint comes from the projection
    // and may lag, which only means reading (and folding) a few more events.
    const from = await this.writer.readThrough(request.team, request.memberId);
    const history = (await store.readStream(streamId, { fromVersion: from + 1n })) as Array<RecordedEvent & InboxEvent>;
    const version = history.length ? history[history.length - 1].streamVersion : from;
    const state = foldEvents(inboxDecider, history);
    const events = inboxDecider.decide({ type: 'take-unread', team: request.team, memberId: request.memberId, throughVersion: version, now: new Date().toISOString() }, state);
    if (events.length > 0) {
      // version > 0 here: there is something unread, so the stream exists.
      await store.append(streamId, events, { expected: version, commandId, metadata: commandMetadata(ctx, commandId) });
    }
    return reply(state.unread, version.toString());
  }
}

function reply(messages: InboxMessage[], throughVersion: string): Reply {
  return { messages, rendered: renderTeammateMessages(messages), throughVersion };
}
