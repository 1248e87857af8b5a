import { Logger } from '@nestjs/common';
import { answerApproval, getApproval, requestApproval, type RunTask } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunState } from './run.state';

/** How long Gavin's plan waits for the operator before the default answer (deny: Gavin drafts again). */
const PLAN_APPROVAL_TIMEOUT_MS = 7 * 24 * 3_600_000;
const PAYLOAD_TASKS = 60;

export type PlanDecision = { decision: 'approve' | 'deny'; by: string; reason?: string } | undefined;

/**
 * v2's gate: Gavin's draft goes into the team-manager's approvals queue as a `plan-approval`, so it
 * shows up wherever approvals are answered. The operator answers there (approve or deny) or through
 * the run (`answer-run`, which may also edit the tasks); either way the run records the decision.
 */
export class PlanApproval {
  private readonly logger = new Logger('RunPlanApproval');

  constructor(private readonly nc: NatsConnection) {}

  async request(state: RunState, sessionId: string, persona: string, tasks: RunTask[]): Promise<string> {
    const s = state.started!;
    const reply = await request(
      this.nc,
      requestApproval,
      {
        team: s.team,
        kind: 'plan-approval',
        requester: persona,
        summary: `${persona}'s plan for '${s.title}': ${tasks.length} task${tasks.length === 1 ? '' : 's'}`.slice(0, 500),
        payload: { runId: s.runId, tasks: tasks.slice(0, PAYLOAD_TASKS).map((t) => ({ key: t.key, subject: t.subject, pool: t.pool, dependsOn: t.dependsOn })) },
        timeoutMs: PLAN_APPROVAL_TIMEOUT_MS,
        defaultAnswer: 'deny',
      },
      { commandId: `run:${s.runId}:plan-approval:${sessionId}` },
    );
    return reply.approvalId;
  }

  async decision(approvalId: string): Promise<PlanDecision> {
    const view = await request(this.nc, getApproval, { approvalId });
    if (view.status === 'pending') return undefined;
    return { decision: view.decision ?? (view.status === 'approved' ? 'approve' : 'deny'), by: view.decidedBy ?? 'operator', ...(view.reason ? { reason: view.reason } : {}) };
  }

  /** Closes the queue entry after the operator answered through the run; one already decided stays as it is. */
  async close(approvalId: string, decision: 'approve' | 'deny', by: string, reason: string): Promise<void> {
    try {
      await request(this.nc, answerApproval, { approvalId, decision, answeredBy: by, reason: reason.slice(0, 2_000) }, { commandId: `plan-approval:${approvalId}:close` });
    } catch (error) {
      this.logger.warn(`closing plan approval ${approvalId}: ${(error as Error).message}`);
    }
  }
}
