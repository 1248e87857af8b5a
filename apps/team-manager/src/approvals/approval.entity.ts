import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { ApprovalView } from '@headspace/contracts';

/** A row of the approvals queue (approvals.projection.ts; migrations/0005_approvals.sql). */
export const ApprovalEntry = defineEntity({
  name: 'ApprovalEntry',
  tableName: 'approvals',
  properties: {
    approvalId: p.text().primary(),
    team: p.text(),
    kind: p.text().$type<ApprovalView['kind']>(),
    requester: p.text(),
    summary: p.text(),
    payload: p.json<ApprovalView['payload']>(),
    defaultAnswer: p.text().$type<ApprovalView['defaultAnswer']>(),
    status: p.text().$type<ApprovalView['status']>(),
    decision: p.text().$type<NonNullable<ApprovalView['decision']>>().nullable(),
    reason: p.text().nullable(),
    decidedBy: p.text().nullable(),
    decisionSource: p.text().$type<NonNullable<ApprovalView['decisionSource']>>().nullable(),
    requestedAt: p.datetime(),
    expiresAt: p.datetime(),
    decidedAt: p.datetime().nullable(),
    seq: p.bigint('string'),
  },
});
export type ApprovalEntry = InferEntity<typeof ApprovalEntry>;

export function toApprovalView(row: ApprovalEntry): ApprovalView {
  const { approvalId, team, kind, requester, summary, payload, defaultAnswer, status, decision, reason, decidedBy, decisionSource, requestedAt, expiresAt, decidedAt } = row;
  return {
    approvalId,
    team,
    kind,
    requester,
    summary,
    payload,
    defaultAnswer,
    status,
    ...(decision ? { decision } : {}),
    ...(reason != null ? { reason } : {}),
    ...(decidedBy ? { decidedBy } : {}),
    ...(decisionSource ? { decisionSource } : {}),
    requestedAt: requestedAt.toISOString(),
    expiresAt: expiresAt.toISOString(),
    ...(decidedAt ? { decidedAt: decidedAt.toISOString() } : {}),
  };
}
