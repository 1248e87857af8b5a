import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, getApproval, HeadspaceError } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { ApprovalEntry, toApprovalView } from '../approval.entity';

/** `get-approval`: one approval and its decision, from the projection. */
@Controller()
export class GetApprovalHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(getApproval)
  async handle(@Payload() request: z.output<typeof getApproval.request>) {
    const row = await this.reads.one(ApprovalEntry, { approvalId: request.approvalId });
    if (!row) throw new HeadspaceError(ErrorCodes.approvalNotFound, `No approval "${request.approvalId}"`, { field: 'approvalId' });
    return toApprovalView(row);
  }
}
