import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createOpsProject, ErrorCodes, getGroup, getOpsProject, listGroups, listIngestKeys, reportException, revokeIngestKey, type ReportExceptionRequest } from '@headspace/contracts';
import { ErrorReporter } from '@headspace/platform';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA, startOpsLeon, type OpsLeonHarness } from '../testing/ops-leon-harness';
import { INTERNAL_KEY_LABEL } from './internal-ingest-keys';

const eventId = () => randomBytes(16).toString('hex');

const unhandled = (over: Partial<ReportExceptionRequest> = {}): ReportExceptionRequest => ({
  eventId: eventId(),
  origin: { service: 'cost-governor', kind: 'unhandled' },
  report: {
    type: 'TypeError',
    message: "Cannot read properties of undefined (reading 'limit')",
    level: 'error',
    stack: "TypeError: Cannot read properties of undefined (reading 'limit')\n    at budgetOf (/srv/headspace/apps/cost-governor/src/budgets/budget-check.ts:41:19)\n    at check (/srv/headspace/apps/cost-governor/src/budgets/check.handler.ts:22:7)",
    serverName: 'cost-governor',
    release: '0.1.0',
    environment: 'development',
    tags: { service: 'cost-governor' },
  },
  ...over,
});

const hookFailure = (source: string): ReportExceptionRequest => ({
  eventId: eventId(),
  origin: { service: 'orchestrator', kind: 'hook', runId: 'run-1', sessionId: 's-1', team: 'shop-team', source, hook: { event: 'PreToolUse', type: 'command', command: './lint.sh', exitCode: 2 } },
  report: { type: 'HookBlockingError', message: 'PreToolUse command hook "./lint.sh" exited with 2: lint failed', level: 'warning', handled: true },
});

const groupsOf = async (h: OpsLeonHarness, project: string) => (await h.send(listGroups, { project })).items;

describe('report-exception: Headspace reports its own errors and hook failures to Leon', () => {
  let h: OpsLeonHarness;
  beforeAll(async () => (h = await startOpsLeon('olinternal')));
  afterAll(() => h?.close());

  it("files a service's unhandled error in the internal project, created on first use for the checkout, grouped with frames and counted once per event id", async () => {
    const first = unhandled();
    const reply = await h.send(reportException, first);
    expect(reply).toMatchObject({ project: 'headspace', eventId: first.eventId, accepted: true });
    expect(await h.send(reportException, first)).toEqual({ ...reply, accepted: false });
    await h.send(reportException, unhandled());

    await h.caughtUp();
    const project = await h.send(getOpsProject, { project: 'headspace' });
    expect(project.repository).toBe(resolve('.'));
    expect((await h.send(listIngestKeys, { project: 'headspace' })).keys.map((k) => k.label)).toEqual([INTERNAL_KEY_LABEL]);
    const group = await h.send(getGroup, { groupId: reply.groupId });
    expect(group).toMatchObject({ project: 'headspace', type: 'TypeError', count: 2, culprit: expect.stringContaining('budgetOf') });
    expect(group.samples[0]).toMatchObject({ serverName: 'cost-governor', source: 'service', tags: expect.objectContaining({ service: 'cost-governor', origin: 'unhandled' }) });
    expect(group.samples[0].frames.map((f) => f.function)).toEqual(['check', 'budgetOf']);
  });

  it("files a hook failure under the project whose repository is the run's source, however the URL is spelled; one no project claims goes to the internal project", async () => {
    await h.send(createOpsProject, { project: 'shop', repository: 'https://github.com/Acme/shop' });
    await h.send(createOpsProject, { project: 'docs', repository: '/srv/docs' });
    await h.caughtUp();

    const claimed = await h.send(reportException, hookFailure('git@github.com:Acme/shop.git'));
    const unclaimed = await h.send(reportException, hookFailure('/srv/elsewhere'));
    expect(claimed.project).toBe('shop');
    expect(unclaimed.project).toBe('headspace');

    await h.caughtUp();
    const group = await h.send(getGroup, { groupId: claimed.groupId });
    expect(group).toMatchObject({ project: 'shop', type: 'HookBlockingError', level: 'warning' });
    expect(group.samples[0]).toMatchObject({
      source: 'hook',
      tags: expect.objectContaining({ origin: 'hook', service: 'orchestrator', run_id: 'run-1', session_id: 's-1', team: 'shop-team', hook_event: 'PreToolUse', hook_command: './lint.sh', hook_exit_code: '2' }),
    });
    expect(await groupsOf(h, 'docs')).toEqual([]);
  });

  it('refuses a report that fails validation, naming the field, and records nothing', async () => {
    const before = await h.db.pool.query(`SELECT count(*) AS n FROM ${SCHEMA}.events`);
    const noHook = hookFailure('/srv/docs');
    delete (noHook.origin as { hook?: unknown }).hook;
    const missingHook = await h.sendError(reportException, noHook);
    expect(missingHook).toMatchObject({ code: ErrorCodes.validationFailed, field: expect.stringContaining('origin.hook') });
    const badId = await h.sendError(reportException, { ...unhandled(), eventId: 'not-hex' });
    expect(badId).toMatchObject({ code: ErrorCodes.validationFailed, field: expect.stringContaining('eventId') });
    const after = await h.db.pool.query(`SELECT count(*) AS n FROM ${SCHEMA}.events`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("reports ops-leon's own errors in-process: a group in the internal project, and no report-exception request on NATS", async () => {
    const requests: string[] = [];
    const sub = h.nc.subscribe(reportException.subject, { callback: (_e, m) => void requests.push(m.subject) });
    await h.nc.flush();
    const reporter = h.app.get(ErrorReporter);
    const sent = reporter.counts.sent;
    function leonsOwnBug(): never {
      throw new RangeError('Invalid array length in the spike detector');
    }
    try {
      leonsOwnBug();
    } catch (error) {
      reporter.capture(error, { level: 'error', handled: false, mechanism: 'rpc' });
    }
    expect(await reporter.flush(5_000)).toBe(true);
    expect(reporter.counts.sent).toBe(sent + 1);

    await h.caughtUp();
    const [group] = (await groupsOf(h, 'headspace')).filter((g) => g.type === 'RangeError');
    const { samples } = await h.send(getGroup, { groupId: group.groupId });
    expect(samples[0]).toMatchObject({ serverName: 'ops-leon', level: 'error', handled: false, tags: expect.objectContaining({ service: 'ops-leon' }) });
    expect(samples[0].frames.at(-1)).toMatchObject({ function: 'leonsOwnBug' });
    sub.unsubscribe();
    expect(requests).toEqual([]);
  });

  it('stops taking internal reports into a project whose internal key the operator revoked', async () => {
    const { keys } = await h.send(listIngestKeys, { project: 'shop' });
    const internal = keys.find((k) => k.label === INTERNAL_KEY_LABEL)!;
    await h.send(revokeIngestKey, { project: 'shop', keyId: internal.keyId });
    const refused = await h.sendError(reportException, hookFailure('https://github.com/Acme/shop.git'));
    expect(refused.code).toBe(ErrorCodes.opsIngestKeyInvalid);
    // Still off after the cached key is dropped: a revoked key is never registered again.
    const again = await h.sendError(reportException, hookFailure('https://github.com/Acme/shop.git'));
    expect(again.code).toBe(ErrorCodes.opsIngestKeyInvalid);
    await waitFor(async () => (await h.send(listIngestKeys, { project: 'shop', includeRevoked: true })).keys.length === 1, { message: 'one internal key, revoked' });
  });
});
