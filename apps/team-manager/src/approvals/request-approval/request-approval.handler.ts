import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, requestApproval } from '@headspace/contracts';
import { EventStore, idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { teamMustExist } from '../../teams/shared/team-must-exist';
import { ApprovalCommands } from '../approval-commands.service';

/** `request-approval`: queues a typed approval for a team, with a timeout and a default answer. */
@Controller()
export class RequestApprovalHandler {
  constructor(
    private readonly commands: ApprovalCommands,
    private readonly store: EventStore,
  ) {}

  @MessagePattern(requestApproval)
  async handle(@Payload() request: z.output<typeof requestApproval.request>, @Ctx() ctx: RequestContext) {
    await teamMustExist(this.store, request.team, ErrorCodes.approvalUnknownTeam);
    const commandId = ctx.commandId ?? randomUUID();
    const approvalId = idFromCommand(commandId, 'approval');
    const outcome = await this.commands.run({ type: 'request-approval', approvalId, ...request, now: new Date().toISOString() }, commandId, ctx);
    const state = outcome.state;
    return { approvalId, expiresAt: state.status === 'none' ? '' : state.expiresAt, streamVersion: outcome.streamVersion.toString() };
  }
}
