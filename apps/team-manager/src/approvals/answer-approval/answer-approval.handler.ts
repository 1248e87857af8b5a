import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { answerApproval } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { ApprovalCommands } from '../approval-commands.service';

/**
 * `answer-approval`: approve or deny with a reason. The first decision is final: a second answer is
 * APPROVAL.ALREADY_ANSWERED, an answer after the timeout was applied APPROVAL.ALREADY_TIMED_OUT. An
 * answer that arrives after `expiresAt` but before the sweeper has applied the default still counts.
 */
@Controller()
export class AnswerApprovalHandler {
  constructor(private readonly commands: ApprovalCommands) {}

  @MessagePattern(answerApproval)
  async handle(@Payload() request: z.output<typeof answerApproval.request>, @Ctx() ctx: RequestContext) {
    const outcome = await this.commands.run({ type: 'answer-approval', ...request, now: new Date().toISOString() }, ctx.commandId ?? randomUUID(), ctx);
    return {
      approvalId: request.approvalId,
      status: request.decision === 'approve' ? ('approved' as const) : ('denied' as const),
      streamVersion: outcome.streamVersion.toString(),
    };
  }
}
