import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { mailboxStreamId, openInbox } from '@headspace/contracts';
import { handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { mailboxDecider } from '../mailbox.decider';
import { inboxOf, MailboxWriter } from '../mailbox-writer';

/**
 * `hs.cmd.team-manager.open-inbox`: registers a member's inbox in the team's mailbox registry
 * (idempotent; called by whoever spawns the member). The team must exist.
 */
@Controller()
export class OpenInboxHandler {
  constructor(private readonly writer: MailboxWriter) {}

  /** In the registry's turn: many members opening their inboxes at once (a crowd spawned) all land. */
  @MessagePattern(openInbox)
  async handle(@Payload() request: z.output<typeof openInbox.request>, @Ctx() ctx: RequestContext) {
    const command = { type: 'open-inbox' as const, ...request, now: new Date().toISOString() };
    const { events, replayed } = await handleCommand(this.writer.store, mailboxDecider, mailboxStreamId(request.team), command, ctx, {
      turn: true,
      before: this.writer.withTeamFacts(request.team),
      route: inboxOf(request.team),
    });
    return { team: request.team, memberId: request.memberId, role: request.role, opened: replayed || events.length > 0 };
  }
}
