import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listApprovals } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { ApprovalEntry, toApprovalView } from '../approval.entity';

/** `list-approvals`: a team's approvals (pending by default), optionally of one kind, oldest first. */
@Controller()
export class ListApprovalsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listApprovals)
  async handle(@Payload() request: z.output<typeof listApprovals.request>) {
    const { team, kind, status, limit } = request;
    const rows = await this.reads.rows(ApprovalEntry, { team, ...(kind ? { kind } : {}), ...(status === 'all' ? {} : { status }) }, { orderBy: [{ seq: 'asc' }], limit });
    return { approvals: rows.map(toApprovalView) };
  }
}
