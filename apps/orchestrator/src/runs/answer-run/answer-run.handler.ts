import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, answerRun } from '@headspace/contracts';
import { EventStore, withRetry } from '@headspace/event-store';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { PlanApproval } from '../plan-approval';
import { RunRecorder } from '../run-recorder';

/**
 * `hs.cmd.orchestrator.answer-run`: the operator answers Robbo, accepts the spec, approves, edits or
 * turns down Gavin's tasks, or answers an escalation. The run process is woken by the event.
 */
@Controller()
export class AnswerRunHandler {
  private readonly approvals: PlanApproval;

  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    this.approvals = new PlanApproval(nc);
  }

  /** The run process may append to the run at the same moment: on a version conflict the answer is decided again on the new state. */
  @MessagePattern(answerRun)
  handle(body: z.output<typeof answerRun.request>) {
    return withRetry(() => this.answer(body));
  }

  private async answer(body: z.output<typeof answerRun.request>) {
    const run = await RunRecorder.load(this.store, body.runId);
    if (!run.state.started) throw new HeadspaceError(ErrorCodes.runNotFound, `No run "${body.runId}"`, { field: 'runId' });
    const now = new Date().toISOString();
    switch (body.kind) {
      case 'questions':
        await run.record({ type: 'answer-questions', runId: body.runId, answer: body.answer, by: body.by, now });
        break;
      case 'spec':
        await run.record({ type: 'accept-spec', runId: body.runId, by: body.by, now });
        break;
      case 'tasks':
        await this.decideTasks(run, body, now);
        break;
      case 'escalation':
        await run.record({ type: 'answer-escalation', runId: body.runId, escalationId: body.escalationId, answer: body.answer, ...(body.note ? { note: body.note } : {}), by: body.by, now });
        break;
    }
    return { runId: body.runId, streamVersion: run.streamVersion.toString() };
  }

  private async decideTasks(run: RunRecorder, body: Extract<z.output<typeof answerRun.request>, { kind: 'tasks' }>, now: string): Promise<void> {
    const approvalId = run.state.proposal?.approvalId;
    if (body.rejectReason !== undefined) {
      await run.record({ type: 'reject-tasks', runId: body.runId, reason: body.rejectReason, by: body.by, now });
    } else {
      await run.record({ type: 'approve-tasks', runId: body.runId, ...(body.tasks ? { tasks: body.tasks } : {}), by: body.by, now });
    }
    // The run has the decision; the approvals queue entry is closed after it (if that fails it times out, and the run ignores it).
    if (approvalId) {
      const reason = body.rejectReason ?? (body.tasks ? 'Approved with edits through the run' : 'Approved through the run');
      await this.approvals.close(approvalId, body.rejectReason !== undefined ? 'deny' : 'approve', body.by, reason);
    }
  }
}
