import { randomBytes, randomUUID } from 'node:crypto';
import {
  answerApproval,
  createOpsProject,
  createTeam,
  exceptionGroupStreamId,
  getOpsProject,
  opsProjectStreamId,
  updateOpsProject,
  listApprovals,
  startRun,
  transitionGroup,
  type RunTask,
} from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { encodeEnvelope, encodeJson } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { jetstream } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
// The spec boots the real team-manager and cost-governor Leon works with; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startCostGovernor, type CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTeamManager, type TeamManagerHarness } from '../../../team-manager/src/testing/team-manager-harness';
import { startOpsLeon, type OpsLeonHarness } from '../testing/ops-leon-harness';
import { fixRunId } from './remediation.policy';

let tm: TeamManagerHarness;
let cg: CostGovernorHarness;
let ol: OpsLeonHarness;
let store: EventStore;
let orchestrator: Subscription;
/** What ops-leon asked the orchestrator for: no orchestrator harness exists, so a NATS responder in the namespace records and acknowledges start-run. */
const runsAsked: Array<z.output<typeof startRun.request>> = [];

beforeAll(async () => {
  tm = await startTeamManager('olremed');
  cg = await startCostGovernor('olremed', { HS_NAMESPACE: tm.namespace });
  // Triage off: the spec records each group's triage itself, so remediation is all that moves it.
  ol = await startOpsLeon('olremed', { HS_NAMESPACE: tm.namespace, HS_OPS_TRIAGE: 'off', HS_OPS_REMEDIATION_POLL_MS: '50', LOG_LEVEL: 'error' });
  store = ol.app.get(EventStore);
  orchestrator = ol.nc.subscribe(startRun.subject, {
    queue: 'orchestrator',
    callback: (_error, msg) => {
      const body = startRun.request.parse(msg.json());
      runsAsked.push(body);
      msg.respond(encodeJson({ ok: true, result: { runId: body.runId, streamVersion: '1' } }));
    },
  });
  await ol.nc.flush();
  await tm.send(createTeam, { name: 'red' });
}, 120_000);

afterAll(async () => {
  orchestrator?.unsubscribe();
  await ol?.close();
  await cg?.close();
  await tm?.close();
});

const now = () => new Date().toISOString();

async function createProject(over: Partial<z.input<typeof createOpsProject.request>> = {}) {
  const project = `shop${randomBytes(3).toString('hex')}`;
  await ol.send(createOpsProject, { project, repository: '/srv/shop', team: 'red', ...over });
  return project;
}

/** A group opened and triaged as triage would record it (NEW → ANALYSING → triaged). */
async function triagedGroup(project: string, triage: { severity: 'critical' | 'error' | 'warning'; complex?: boolean; autoFixable?: boolean; title?: string }) {
  const groupId = `grp_${randomBytes(12).toString('hex')}`;
  const base = { groupId, project };
  const stream = exceptionGroupStreamId(groupId);
  const title = triage.title ?? "Cannot read properties of undefined (reading '<str>')";
  await store.append(stream, [
    { type: 'group.opened', data: { ...base, projectId: '1', fingerprint: randomBytes(16).toString('hex'), type: 'TypeError', title, culprit: 'src/cart.js in total', level: 'error', firstEventId: randomBytes(16).toString('hex'), at: now() } },
    { type: 'group.analysing-started', data: { ...base, from: 'NEW', to: 'ANALYSING', by: 'leon', at: now() } },
    {
      type: 'group.triaged',
      data: {
        ...base,
        from: 'ANALYSING',
        to: 'ANALYSING',
        by: 'leon',
        severity: triage.severity,
        domain: 'backend',
        persona: 'con',
        autoFixable: triage.autoFixable ?? true,
        complex: triage.complex ?? false,
        hypothesis: 'the cart is undefined for a new session',
        approach: 'create the cart on first use',
        source: 'model',
        at: now(),
      },
    },
  ], { expected: 'no-stream' });
  return groupId;
}

const history = async (groupId: string) => (await store.readStream(exceptionGroupStreamId(groupId))).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
const stateOf = async (groupId: string) => ((await history(groupId)).at(-1)?.data.to as string | undefined) ?? 'NEW';
const untilState = (groupId: string, state: string) => waitFor(async () => (await stateOf(groupId)) === state, { timeoutMs: 20_000 });

/** A run event as the orchestrator's relay publishes it. */
async function publishRunEvent(runId: string, name: string, data: Record<string, unknown>, version: number) {
  const eventId = randomUUID();
  const envelope = { eventId, type: `run.${name}`, streamId: `run-${runId}`, streamVersion: String(version), globalPosition: String(version), schemaVersion: 1, data: { runId, ...data }, metadata: {}, recordedAt: now() };
  await jetstream(ol.nc).publish(`${tm.namespace}.hs.evt.orchestrator.run.${name}`, encodeEnvelope(envelope), { msgID: eventId });
}

describe('Leon remediation: approvals, trusted fixes, fix runs, verification and the escalation ladder', { timeout: 90_000 }, () => {
  it('puts an auto-fixable group into the team’s approvals queue as FIX_PROPOSED; a denial leaves it there, an approval starts its fix run', async () => {
    const project = await createProject();
    const denied = await triagedGroup(project, { severity: 'error' });
    const approved = await triagedGroup(project, { severity: 'error' });
    await untilState(denied, 'FIX_PROPOSED');
    await untilState(approved, 'FIX_PROPOSED');

    let pending: Awaited<ReturnType<typeof tm.send<typeof listApprovals>>>['approvals'] = [];
    await waitFor(async () => {
      pending = (await tm.send(listApprovals, { team: 'red', kind: 'fix-approval' })).approvals.filter((a) => a.payload.project === project);
      return pending.length === 2;
    });
    const approvalOf = (groupId: string) => pending.find((a) => a.payload.groupId === groupId)!;
    expect(approvalOf(denied)).toMatchObject({
      requester: 'leon',
      status: 'pending',
      defaultAnswer: 'deny',
      summary: expect.stringContaining('TypeError'),
      payload: { groupId: denied, project, severity: 'error', domain: 'backend', persona: 'con', hypothesis: 'the cart is undefined for a new session', approach: 'create the cart on first use' },
    });
    const proposed = (await history(denied)).find((e) => e.type === 'group.fix-proposed');
    expect(proposed?.data).toMatchObject({ from: 'ANALYSING', to: 'FIX_PROPOSED', by: 'leon', approvalId: approvalOf(denied).approvalId, approach: 'create the cart on first use' });

    await tm.send(answerApproval, { approvalId: approvalOf(denied).approvalId, decision: 'deny', reason: 'not now', answeredBy: 'operator' });
    await tm.send(answerApproval, { approvalId: approvalOf(approved).approvalId, decision: 'approve', answeredBy: 'operator' });
    await untilState(approved, 'FIX_IN_PROGRESS');
    await waitFor(async () => (await ol.db.pool.query(`SELECT 1 FROM ops_leon.remediations WHERE group_id = $1 AND approval_decision = 'deny'`, [denied])).rowCount === 1);
    expect(await stateOf(denied)).toBe('FIX_PROPOSED');
    expect(runsAsked.map((r) => r.fix?.groupId)).not.toContain(denied);
    expect(runsAsked.find((r) => r.fix?.groupId === approved)).toMatchObject({ runId: fixRunId(approved, 1), team: 'red', source: '/srv/shop' });
  });

  it('fixes a trusted project’s warning without an approval, then commits, verifies and resolves it once its window passes', async () => {
    const project = await createProject({ trusted: true, testCommand: 'node --test', verifyWindowSeconds: 1 });
    const groupId = await triagedGroup(project, { severity: 'warning' });
    const runId = fixRunId(groupId, 1);
    await untilState(groupId, 'FIX_IN_PROGRESS');
    expect((await tm.send(listApprovals, { team: 'red', kind: 'fix-approval', status: 'all' })).approvals.filter((a) => a.payload.groupId === groupId)).toEqual([]);
    const asked = runsAsked.find((r) => r.runId === runId)!;
    expect(asked).toMatchObject({ team: 'red', source: '/srv/shop', mode: 'v1', operator: 'auto', fix: { groupId, testCommand: 'node --test', regressionTaskKey: 'REG' } });
    expect(asked.goal).toContain('the cart is undefined for a new session');
    expect(asked.tasks?.map((t: RunTask) => [t.key, t.pool, t.dependsOn])).toEqual([
      ['REG', 'qa', []],
      ['FIX', 'backend', ['REG']],
    ]);

    const check = { command: 'node --test', output: '', at: now() };
    await publishRunEvent(runId, 'regression-checked', { ...check, stage: 'before-fix', commit: 'aaa111', exitCode: 1, ok: true, testFiles: ['test/cart.test.js'] }, 10);
    await publishRunEvent(runId, 'regression-checked', { ...check, stage: 'after-fix', commit: 'bbb222', exitCode: 0, ok: true, testFiles: ['test/cart.test.js'] }, 11);
    await publishRunEvent(runId, 'completed', { verdict: 'done', resultDir: '/tmp/r', branch: `headspace/${runId}`, headCommit: 'bbb222', at: now() }, 12);
    await untilState(groupId, 'RESOLVED');

    const events = await history(groupId);
    expect(events.map((e) => e.data.to ?? 'NEW')).toEqual(['NEW', 'ANALYSING', 'ANALYSING', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', 'VERIFIED', 'RESOLVED']);
    expect(events[3].data).toMatchObject({ approvalSkipped: 'trusted', by: 'leon' });
    expect(events[3].data).not.toHaveProperty('approvalId');
    expect(events[4].data).toMatchObject({ runId, team: 'red' });
    expect(events[5].data).toMatchObject({ commit: 'bbb222', release: 'bbb222', runId, regressionTest: 'test/cart.test.js' });
    expect(events[6].data).toMatchObject({ windowSeconds: 1 });
    expect(Date.parse(events[6].data.at as string) - Date.parse(events[5].data.at as string)).toBeGreaterThanOrEqual(1_000);
    expect(events[7].data).toMatchObject({ manual: false, fixRelease: 'bbb222' });
  });

  it('escalates a failed fix run to Gavin, who (on the simulator) has it fixed as a task again', async () => {
    const project = await createProject({ trusted: true, verifyWindowSeconds: 3_600 });
    const groupId = await triagedGroup(project, { severity: 'warning' });
    await untilState(groupId, 'FIX_IN_PROGRESS');
    await publishRunEvent(fixRunId(groupId, 1), 'failed', { reason: 'the regression test never failed', at: now() }, 9);
    await waitFor(async () => (await history(groupId)).some((e) => e.type === 'group.fix-started' && e.data.runId === fixRunId(groupId, 2)), { timeoutMs: 20_000 });
    expect(runsAsked.filter((r) => r.fix?.groupId === groupId).map((r) => r.runId)).toEqual([fixRunId(groupId, 1), fixRunId(groupId, 2)]);
    const moves = (await history(groupId)).slice(3).map((e) => [e.type, e.data.level ?? e.data.runId ?? e.data.approvalSkipped]);
    expect(moves).toEqual([
      ['group.fix-proposed', 'trusted'],
      ['group.fix-started', fixRunId(groupId, 1)],
      ['group.escalated', 'gavin'],
      ['group.fix-proposed', 'trusted'],
      ['group.fix-started', fixRunId(groupId, 2)],
    ]);
    expect((await history(groupId))[5].data.reason).toContain('the regression test never failed');
    expect((await history(groupId))[6].data.approach).toContain('[simulated]');
  });

  it('climbs an architectural group up the ladder: Gavin, then Robbo (on the simulator), then the operator, who can still ask for the fix', async () => {
    const project = await createProject();
    const groupId = await triagedGroup(project, { severity: 'error', complex: true, title: 'tenant shard map needs a redesign across services' });
    await waitFor(async () => (await history(groupId)).some((e) => e.type === 'group.escalated' && e.data.level === 'operator'), { timeoutMs: 30_000 });
    const escalations = (await history(groupId)).filter((e) => e.type === 'group.escalated').map((e) => ({ level: e.data.level, reason: e.data.reason }));
    expect(escalations).toEqual([
      { level: 'gavin', reason: 'complex: the cart is undefined for a new session' },
      { level: 'robbo', reason: expect.stringMatching(/^Gavin: \[simulated\] This needs a design change/) },
      { level: 'operator', reason: expect.stringMatching(/^Robbo: \[simulated\] Changing how the services split/) },
    ]);
    expect(await stateOf(groupId)).toBe('ESCALATED');

    // A crash after Robbo's rung acted but before it was marked done: the worker repeats the rung and appends nothing twice.
    const triagedId = (await store.readStream(exceptionGroupStreamId(groupId))).find((e) => e.type === 'group.triaged')!.eventId;
    const before = await history(groupId);
    await ol.db.pool.query(`UPDATE ops_leon.remediations SET step = 'ask-robbo', step_id = $2, step_input = '{}', due_at = now() WHERE group_id = $1`, [groupId, `${triagedId}:gavin:robbo`]);
    await waitFor(async () => (await ol.db.pool.query(`SELECT 1 FROM ops_leon.remediations WHERE group_id = $1 AND step IS NULL`, [groupId])).rowCount === 1);
    expect(await history(groupId)).toEqual(before);

    await ol.send(transitionGroup, { groupId, action: 'fix', reason: 'split the shard map per tenant', actor: 'operator' });
    await untilState(groupId, 'FIX_IN_PROGRESS');
    expect(runsAsked.find((r) => r.fix?.groupId === groupId)?.goal).toContain('split the shard map per tenant');
  });

  it('refuses bad remediation settings naming the field, writing nothing', async () => {
    const project = `shop${randomBytes(3).toString('hex')}`;
    expect(await ol.sendError(createOpsProject, { project, repository: '/srv/shop', team: 'Red Team' })).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'team' });
    expect(await ol.sendError(createOpsProject, { project, repository: '/srv/shop', verifyWindowSeconds: -1 })).toMatchObject({ field: 'verifyWindowSeconds' });
    expect(await ol.sendError(createOpsProject, { project, repository: '/srv/shop', testCommand: '' })).toMatchObject({ field: 'testCommand' });
    expect(await store.readStream(opsProjectStreamId(project))).toEqual([]);

    await ol.send(createOpsProject, { project, repository: '/srv/shop' });
    expect(await ol.sendError(updateOpsProject, { project, verifyWindowSeconds: 31 * 86_400 })).toMatchObject({ field: 'verifyWindowSeconds' });
    const updated = await ol.send(updateOpsProject, { project, team: 'red', testCommand: 'node --test', verifyWindowSeconds: 60 });
    expect(updated.project).toMatchObject({ team: 'red', testCommand: 'node --test', verifyWindowSeconds: 60, trusted: false });
    await ol.caughtUp();
    expect(await ol.send(getOpsProject, { project })).toMatchObject({ team: 'red', testCommand: 'node --test', verifyWindowSeconds: 60 });
  });

  it('escalates a group of a project without a team straight to the operator, saying so', async () => {
    const project = `shop${randomBytes(3).toString('hex')}`;
    await ol.send(createOpsProject, { project, repository: '/srv/shop' });
    const groupId = await triagedGroup(project, { severity: 'error' });
    await untilState(groupId, 'ESCALATED');
    expect((await history(groupId)).at(-1)?.data).toMatchObject({ level: 'operator', reason: expect.stringContaining(`project ${project} has no team`) });
  });
});
