import { answerApproval, createTeam, getBudget, getTaskCost, getTierDistribution, listApprovals, maySpend, recordUsage, setBudget } from '@headspace/contracts';
import { loadConfig } from '@headspace/platform';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCostGovernor, type CostGovernorHarness } from '../testing/cost-governor-harness';
// The e2e spec boots the real services it exercises; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';

/**
 * Seed 003 Journey 11 through NATS, with the team-manager's approvals queue: a $2.00 session budget
 * on Opus; at $1.60 (80%) may-spend downgrades to Sonnet with the reason; at $1.90 (95%) the session
 * pauses and a budget-overrun approval is queued; approving with +$1.00 resumes on Sonnet against
 * $3.00; per-task cost and the tier distribution are queryable.
 */
describe('Journey 11: the cost governor downgrades models when the budget is tight', () => {
  let h: CostGovernorHarness;
  const team = 'journey-eleven';
  const attribution = (taskId: string) => ({ taskId, sessionId: 'j11-session', persona: 'robbo', team, project: 'headspace', surface: 'cli' as const });

  beforeAll(async () => {
    h = await startCostGovernor('journey11');
    await h.addCompanion(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, { ...h.env, HS_APPROVAL_SWEEP_MS: '1000' }, TEAM_MANAGER)));
    await h.send(createTeam, { name: team, leadAgentType: 'architect' });
  });

  afterAll(async () => {
    await h?.close();
  });

  /** One turn: ask, run on the model the governor names, record what it used. */
  const turn = async (taskId: string, tokens: { inputTokens: number; outputTokens: number }) => {
    const answer = await h.send(maySpend, { attribution: attribution(taskId), model: 'opus', signals: { requiresReasoning: true }, estimate: { inputTokens: tokens.inputTokens, maxOutputTokens: 4_000 } });
    expect(answer.decision).toBe('allow');
    await h.send(recordUsage, { attribution: attribution(taskId), model: answer.routing.model, reservationId: answer.reservationId, tokens });
    return answer;
  };

  it('walks the journey from Opus to Sonnet, through a pause and an approved top-up', async () => {
    await h.send(setBudget, { scope: { kind: 'session', sessionId: 'j11-session' }, limitUsd: '2.00', setBy: 'developer' });

    // 20 turns on Opus 4.6 at 6,000 input ($0.03) + 2,000 output ($0.05) = $0.08 each: $1.60.
    for (let i = 0; i < 20; i++) expect((await turn('task-architecture', { inputTokens: 6_000, outputTokens: 2_000 })).routing.tier).toBe('opus');
    expect(await h.send(getBudget, { budgetId: 'session.j11-session' })).toMatchObject({ spentMicros: '1600000', utilisation: 80, warned: true, status: 'active' });

    // 80%: the next call runs on Sonnet, and the answer says why.
    const downgraded = await turn('task-implementation', { inputTokens: 5_000, outputTokens: 3_000 });
    expect(downgraded.routing).toMatchObject({ tier: 'sonnet', model: 'claude-sonnet-4-6' });
    expect(downgraded.routing.reasons).toContain('Approaching budget limit (80%): opus → sonnet');
    // 4 more Sonnet turns at 5,000 input ($0.015) + 3,000 output ($0.045) = $0.06 each: $1.90.
    for (let i = 0; i < 4; i++) await turn('task-implementation', { inputTokens: 5_000, outputTokens: 3_000 });

    // 95%: paused, new calls refused, and an approval waits in the team's queue.
    const paused = await h.send(maySpend, { attribution: attribution('task-implementation'), model: 'opus', estimate: { inputTokens: 5_000, maxOutputTokens: 4_000 } });
    expect(paused).toMatchObject({ decision: 'paused', code: 'BUDGET.PAUSED', reservedMicros: '0' });
    const [approval] = await waitFor(async () => {
      const { approvals } = await h.send(listApprovals, { team, kind: 'budget-overrun' });
      return approvals.length ? approvals : undefined;
    }, { message: 'the budget-overrun approval was requested' });
    expect(approval).toMatchObject({ summary: 'Budget 95% consumed. Continue?', requester: 'cost-governor', status: 'pending' });
    expect(approval.payload).toMatchObject({ budgetId: 'session.j11-session', spentUsd: '1.900000', limitUsd: '2.000000', proposedAddUsd: '1.000000' });

    // The developer approves with an additional $1.00.
    await h.send(answerApproval, { approvalId: approval.approvalId, decision: 'approve', reason: 'addUsd=1.00', answeredBy: 'developer' });
    const resumed = await waitFor(async () => {
      const budget = await h.send(getBudget, { budgetId: 'session.j11-session' });
      return budget.status === 'active' ? budget : undefined;
    }, { message: 'the approval resumed the budget' });
    expect(resumed).toMatchObject({ limitMicros: '3000000', spentMicros: '1900000', approvalId: approval.approvalId });

    // Resumes on Sonnet, tracked against the new $3.00 total.
    const after = await turn('task-implementation', { inputTokens: 5_000, outputTokens: 3_000 });
    expect(after.routing.tier).toBe('sonnet');
    expect(after.budgets[0]).toMatchObject({ limitMicros: '3000000' });
    expect((await h.send(getBudget, { budgetId: 'session.j11-session' })).spentMicros).toBe('1960000');

    // Per-task attribution and the tier distribution.
    await h.caughtUp();
    expect(await h.send(getTaskCost, { taskId: 'task-architecture' })).toMatchObject({ calls: 20, inputTokens: 120_000, outputTokens: 40_000, costUsd: '1.600000' });
    expect(await h.send(getTaskCost, { taskId: 'task-implementation' })).toMatchObject({ calls: 6, inputTokens: 30_000, outputTokens: 18_000, costUsd: '0.360000' });
    const { tiers } = await h.send(getTierDistribution, { sessionId: 'j11-session' });
    expect(tiers.map((t) => [t.tier, t.calls, t.costMicros])).toEqual([
      ['opus', 20, '1600000'],
      ['sonnet', 6, '360000'],
    ]);
  });

  it('stops the session cleanly when the approval is denied', async () => {
    const denied = (taskId: string) => ({ ...attribution(taskId), sessionId: 'j11-denied' });
    await h.send(setBudget, { scope: { kind: 'session', sessionId: 'j11-denied' }, limitUsd: '0.10', setBy: 'developer' });
    await h.send(recordUsage, { attribution: denied('task-deny'), model: 'haiku', tokens: { inputTokens: 0, outputTokens: 19_000 } }); // $0.095
    const approval = await waitFor(async () => {
      const { approvals } = await h.send(listApprovals, { team, kind: 'budget-overrun' });
      return approvals.find((a) => a.payload.budgetId === 'session.j11-denied');
    }, { message: 'the second approval was requested' });
    await h.send(answerApproval, { approvalId: approval.approvalId, decision: 'deny', reason: 'enough for today', answeredBy: 'developer' });
    await waitFor(async () => (await h.send(getBudget, { budgetId: 'session.j11-denied' })).status === 'stopped', { message: 'the denial stopped the budget' });
    const refused = await h.send(maySpend, { attribution: denied('task-deny'), estimate: { inputTokens: 10, maxOutputTokens: 10 } });
    expect(refused).toMatchObject({ decision: 'stopped', code: 'BUDGET.STOPPED' });
  });
});
