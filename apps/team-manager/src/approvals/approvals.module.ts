import { Module } from '@nestjs/common';
import { AnswerApprovalHandler } from './answer-approval/answer-approval.handler';
import { ApprovalCommands } from './approval-commands.service';
import { ApprovalsProjection } from './approvals.projection';
import { GetApprovalHandler } from './get-approval/get-approval.handler';
import { ListApprovalsHandler } from './list-approvals/list-approvals.handler';
import { RequestApprovalHandler } from './request-approval/request-approval.handler';
import { ApprovalTimeoutSweeper } from './timeout-sweeper/approval-timeout.sweeper';

/** The approvals queue: one stream per approval, the approvals projection, the timeout sweeper. */
@Module({
  providers: [ApprovalCommands, ApprovalsProjection, ApprovalTimeoutSweeper],
  controllers: [RequestApprovalHandler, AnswerApprovalHandler, ListApprovalsHandler, GetApprovalHandler],
})
export class ApprovalsModule {}
