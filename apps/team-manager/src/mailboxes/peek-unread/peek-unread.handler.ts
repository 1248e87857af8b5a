import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { peekUnread } from '@headspace/contracts';
import { foldEvents } from '@headspace/event-store';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { inboxDecider } from '../inbox.decider';
import { MailboxWriter } from '../mailbox-writer';
import { reply } from '../take-unread/take-unread.handler';

/**
 * `hs.qry.team-manager.peek-unread`: the unread queue as take-unread would return it, without
 * marking anything read — one indexed read in the usual case (the inbox is known to the
 * projection). An agent runtime asks it alongside its budget check, every turn.
 */
@Injectable()
export class PeekUnreadHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly writer: MailboxWriter,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, peekUnread, (request) => this.handle(request));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  async handle(request: z.output<typeof peekUnread.request>): Promise<z.output<typeof peekUnread.response>> {
    const inbox = await this.writer.unreadSince(request.team, request.memberId);
    return reply(foldEvents(inboxDecider, inbox.events).unread, inbox.version.toString());
  }
}
