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
import { KeyedQueue } from '../../teams/shared/keyed-queue';
import { inStreamTurn } from '../../teams/shared/stream-turn';

/**
 * `hs.cmd.team-manager.open-inbox`: registers a member's inbox in the team's mailbox registry
 * (idempotent; called by whoever spawns the member). The team must exist.
 */
@Injectable()
export class OpenInboxHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;
  /** One connection per team waits for the registry's turn in this instance, not one per request. */
  private readonly queue = new KeyedQueue();

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
    return this.queue.run(request.team, () => withRetry(() => this.attempt(request, ctx, commandId), { maxAttempts: 5 }));
  }

  /** In the registry's turn (`inStreamTurn`): many members opening their inboxes at once (a crowd spawned) all land. */
  private attempt(request: z.output<typeof openInbox.request>, ctx: RequestContext, commandId: string) {
    const reply = (opened: boolean) => ({ team: request.team, memberId: request.memberId, role: request.role, opened });
    const registryId = mailboxStreamId(request.team);
    return inStreamTurn(this.writer.store, registryId, async (client) => {
      if (await this.writer.store.priorResult(registryId, commandId, client)) return reply(true);
      const { state, version } = await this.writer.registry(request.team, client);
      const events = mailboxDecider.decide({ type: 'open-inbox', ...request, now: new Date().toISOString() }, state);
      if (events.length === 0) return reply(false);
      await this.writer.appendDecision(request.team, version, events, commandId, commandMetadata(ctx, commandId), client);
      return reply(true);
    });
  }
}
