import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { mailboxStreamId, openInbox } from '@headspace/contracts';
import { handleCommand } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { mailboxDecider } from '../mailbox.decider';
import { inboxOf, MailboxWriter } from '../mailbox-writer';

/**
 * `hs.cmd.team-manager.open-inbox`: registers a member's inbox in the team's mailbox registry
 * (idempotent; called by whoever spawns the member). The team must exist.
 */
@Injectable()
export class OpenInboxHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly writer: MailboxWriter,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, openInbox, (request, ctx) => this.handle(request, ctx));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  /** In the registry's turn: many members opening their inboxes at once (a crowd spawned) all land. */
  async handle(request: z.output<typeof openInbox.request>, ctx: RequestContext) {
    const command = { type: 'open-inbox' as const, ...request, now: new Date().toISOString() };
    const { events, replayed } = await handleCommand(this.writer.store, mailboxDecider, mailboxStreamId(request.team), command, ctx, {
      turn: true,
      before: this.writer.withTeamFacts(request.team),
      route: inboxOf(request.team),
    });
    return { team: request.team, memberId: request.memberId, role: request.role, opened: replayed || events.length > 0 };
  }
}
