import { Injectable } from '@nestjs/common';
import { approvalStreamId } from '@headspace/contracts';
import { EventStore, handleCommand, type CommandContext, type CommandOutcome } from '@headspace/event-store';
import { approvalDecider, type ApprovalCommand, type ApprovalEvent, type ApprovalState } from './approval.decider';

/** An approval's commands through the one command handler, on the approval's own stream. */
@Injectable()
export class ApprovalCommands {
  constructor(private readonly store: EventStore) {}

  run(command: ApprovalCommand, commandId: string, ctx: CommandContext = {}): Promise<CommandOutcome<ApprovalState, ApprovalEvent>> {
    return handleCommand(this.store, approvalDecider, approvalStreamId(command.approvalId), command, { ...ctx, commandId });
  }
}
