import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ErrorCodes, getGroup, listGroups, reportException } from '@headspace/contracts';
import { freePort, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpsLeon, type OpsLeonHarness } from '../testing/ops-leon-harness';
import { failUnexpectedly, rejectUnhandled } from './testing/spec-faults';

const repo = resolve(__dirname, '../../../..');

interface Service {
  child: ChildProcess;
  metricsPort: number;
  exited: Promise<number | null>;
  output: () => string;
}

/**
 * The team-manager as a real process (bootstrapService, as in production) with two bugs added, in
 * ops-leon's namespace: its non-typed 5xx and its unhandled rejection must reach Leon's internal
 * project as groups with the right type, server name and frames — or, with HS_REPORT_ERRORS=off,
 * nothing must be sent at all. Either way the rejection still ends the process with exit code 1.
 */
describe("a Headspace service's own errors reach Leon", () => {
  let h: OpsLeonHarness;
  const children: ChildProcess[] = [];

  beforeAll(async () => (h = await startOpsLeon('olownerrors')), 60_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await h?.close();
  });

  async function startTeamManager(env: Record<string, string> = {}): Promise<Service> {
    const [port, metricsPort] = [await freePort(), await freePort()];
    let output = '';
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'testing', 'faulty-team-manager.ts')], {
      cwd: repo,
      env: { ...process.env, ...h.env, SWC_NODE_PROJECT: join(repo, 'tsconfig.json'), HTTP_PORT: String(port), METRICS_PORT: String(metricsPort), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`team-manager exited with ${child.exitCode}: ${output}`);
        return (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'the team-manager to be ready' },
    );
    return { child, metricsPort, exited, output: () => output };
  }

  const headspaceGroups = async () => {
    await h.caughtUp();
    return (await h.send(listGroups, { project: 'headspace' }).catch(() => ({ items: [] }))).items;
  };

  it('a non-typed 5xx 50 times is one report (49 counted as repeats); an unhandled rejection is reported before the process exits 1', async () => {
    const tm = await startTeamManager();
    for (let i = 0; i < 50; i++) expect((await h.sendError(failUnexpectedly, {})).code).toBe(ErrorCodes.internal);
    const metrics = await (await fetch(`http://127.0.0.1:${tm.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/headspace_error_reports(_total)?\{[^}]*outcome="deduplicated"[^}]*\} 49\b/);

    expect(await h.send(rejectUnhandled, {})).toEqual({ scheduled: true });
    expect(await tm.exited).toBe(1);
    expect(tm.output()).toContain('unhandledRejection: exiting');

    const groups = await waitFor(async () => {
      const items = await headspaceGroups();
      return items.some((g) => g.type === 'TypeError') && items.some((g) => g.type === 'InvoiceError') ? items : undefined;
    }, { message: "the team-manager's two errors in project headspace" });
    const typeError = groups.find((g) => g.type === 'TypeError')!;
    expect(typeError).toMatchObject({ count: 1, title: 'Cannot read properties of undefined (reading <str>)', culprit: expect.stringContaining('discountOf') });
    const [fault] = (await h.send(getGroup, { groupId: typeError.groupId })).samples;
    expect(fault).toMatchObject({ serverName: 'team-manager', level: 'error', handled: false, environment: 'development', release: expect.stringMatching(/^\d+\.\d+\.\d+/), tags: expect.objectContaining({ service: 'team-manager', mechanism: 'rpc' }) });
    expect(fault.frames.at(-1)).toMatchObject({ function: 'discountOf', filename: expect.stringContaining('spec-faults.ts') });

    const rejection = groups.find((g) => g.type === 'InvoiceError')!;
    const [crash] = (await h.send(getGroup, { groupId: rejection.groupId })).samples;
    expect(crash).toMatchObject({ serverName: 'team-manager', level: 'error', handled: false, message: 'invoice 77 was settled twice', tags: expect.objectContaining({ mechanism: 'unhandledRejection' }) });
    expect(crash.frames.at(-1)).toMatchObject({ function: 'settleInvoice' });
  });

  it('HS_REPORT_ERRORS=off sends nothing, and the unhandled rejection still ends the process with exit code 1', async () => {
    const seen: string[] = [];
    const sub = h.nc.subscribe(reportException.subject, { callback: (_e, m) => void seen.push(m.string()) });
    const tm = await startTeamManager({ HS_REPORT_ERRORS: 'off' });
    expect((await h.sendError(failUnexpectedly, {})).code).toBe(ErrorCodes.internal);
    expect(await h.send(rejectUnhandled, {})).toEqual({ scheduled: true });
    // Reporting on, the crash would have flushed its reports before this exit.
    expect(await tm.exited).toBe(1);
    await h.nc.flush();
    sub.unsubscribe();
    expect(seen).toEqual([]);
  });
});
