import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, requestApproval, teamStreamId } from '@headspace/contracts';
import { EventStore, idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { ApprovalCommands } from '../approval-commands.service';

/** `request-approval`: queues a typed approval for a team, with a timeout and a default answer. */
@Injectable()
export class RequestApprovalHandler extends ServedHandler<typeof requestApproval> {
  constructor(
    private readonly commands: ApprovalCommands,
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(requestApproval, nc);
  }

  async handle(request: z.output<typeof requestApproval.request>, ctx: RequestContext) {
    if ((await this.store.streamVersion(teamStreamId(request.team))) === null) {
      throw new HeadspaceError(ErrorCodes.approvalUnknownTeam, `Team "${request.team}" does not exist`, { field: 'team' });
    }
    const commandId = ctx.commandId ?? randomUUID();
    const approvalId = idFromCommand(commandId, 'approval');
    const outcome = await this.commands.run({ type: 'request-approval', approvalId, ...request, now: new Date().toISOString() }, commandId, ctx);
    const state = outcome.state;
    return { approvalId, expiresAt: state.status === 'none' ? '' : state.expiresAt, streamVersion: outcome.streamVersion.toString() };
  }
}
