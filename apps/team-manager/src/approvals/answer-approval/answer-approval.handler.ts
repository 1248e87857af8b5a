import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { answerApproval } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { ApprovalCommands } from '../approval-commands.service';

/**
 * `answer-approval`: approve or deny with a reason. The first decision is final: a second answer is
 * APPROVAL.ALREADY_ANSWERED, an answer after the timeout was applied APPROVAL.ALREADY_TIMED_OUT. An
 * answer that arrives after `expiresAt` but before the sweeper has applied the default still counts.
 */
@Injectable()
export class AnswerApprovalHandler extends ServedHandler<typeof answerApproval> {
  constructor(
    private readonly commands: ApprovalCommands,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(answerApproval, nc);
  }

  async handle(request: z.output<typeof answerApproval.request>, ctx: RequestContext) {
    const outcome = await this.commands.run({ type: 'answer-approval', ...request, now: new Date().toISOString() }, ctx.commandId ?? randomUUID(), ctx);
    return {
      approvalId: request.approvalId,
      status: request.decision === 'approve' ? ('approved' as const) : ('denied' as const),
      streamVersion: outcome.streamVersion.toString(),
    };
  }
}
