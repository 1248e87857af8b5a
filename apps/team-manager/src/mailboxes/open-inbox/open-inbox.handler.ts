import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { mailboxStreamId, openInbox } from '@headspace/contracts';
import { withRetry } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { mailboxDecider } from '../mailbox.decider';
import { commandMetadata, MailboxWriter } from '../mailbox-writer';

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

  handle(request: z.output<typeof openInbox.request>, ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    return withRetry(() => this.attempt(request, ctx, commandId), { maxAttempts: 5 });
  }

  private async attempt(request: z.output<typeof openInbox.request>, ctx: RequestContext, commandId: string) {
    const reply = (opened: boolean) => ({ team: request.team, memberId: request.memberId, role: request.role, opened });
    if (await this.writer.store.priorResult(mailboxStreamId(request.team), commandId)) return reply(true);
    const { state, version } = await this.writer.registry(request.team);
    const events = mailboxDecider.decide({ type: 'open-inbox', ...request, now: new Date().toISOString() }, state);
    if (events.length === 0) return reply(false);
    await this.writer.appendDecision(request.team, version, events, commandId, commandMetadata(ctx, commandId));
    return reply(true);
  }
}
