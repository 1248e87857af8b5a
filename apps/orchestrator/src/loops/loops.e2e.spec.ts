import { execFile, execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoopView } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');
/** The login check of the learnings loop: passes once login.mjs awaits bcrypt's compare. */
const LOGIN_CHECK = `grep -q "await compare" login.mjs || { echo "AssertionError: login accepted a wrong password (compare returned a Promise)"; exit 1; }`;
/** Fails the same way every time, apart from the pid and the time the signature leaves out. */
const GREETING_CHECK = `echo "AssertionError: expected hello, got $(cat greeting.txt) (pid $$ at $(date +%s%N))"; exit 1`;

/**
 * Self-improving loops end to end through the gateway and the CLI, on the simulator's loop
 * scenarios (libs/llm/scenarios/any-loop-*.yaml): each of the seed's safety controls stops a loop
 * with its reason, and a successful loop carries iteration 1's learning into iteration 2's prompt.
 */
describe('self-improving loops (POST /api/v1/teams/:team/loops, headspace loop)', { timeout: 300_000 }, () => {
  let run: RunHarness;
  let endpoint: string;
  const h = () => run.h;
  const project = (name: string) => join(run.dir, 'projects', name);
  const post = (payload: Record<string, unknown>, team = 'loops') => h().call({ method: 'POST', url: `/api/v1/teams/${team}/loops`, payload }, h().adminToken);
  const view = async (loopId: string, team = 'loops') => (await h().call({ method: 'GET', url: `/api/v1/teams/${team}/loops/${loopId}` }, h().adminToken)).json() as LoopView;
  const ended = (loopId: string) => waitFor(async () => ((v) => (v.status === 'running' ? undefined : v))(await view(loopId)), { timeoutMs: 200_000, intervalMs: 250, message: `loop ${loopId} to end` });
  const loopEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'loop-%'`)).rows[0].n);
  const gitOut = (dir: string, args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  const start = async (payload: Record<string, unknown>) => {
    const res = await post(payload);
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { loopId: string }).loopId;
  };

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 240_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    run = await startRunHarness({ label: 'loops', sourceRoots: true });
    for (const name of ['greet', 'changelog', 'fixtures', 'login', 'idle', 'overnight']) {
      await mkdir(project(name), { recursive: true });
      await writeFile(join(project(name), 'README.md'), `# ${name}\n`);
    }
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await run?.close();
  });

  it('refuses bad input with a 400 naming the field and writes nothing', async () => {
    const before = await loopEvents();
    for (const [payload, field] of [
      [{ task: 'x', workspace: project('idle'), maxIterations: 0 }, 'maxIterations'],
      [{ task: 'x', workspace: project('idle'), stopFile: '../outside' }, 'stopFile'],
      [{ task: 'x', workspace: project('idle'), sameErrorLimit: 1 }, 'sameErrorLimit'],
      [{ task: '   ', workspace: project('idle') }, 'task'],
      [{ task: 'x', workspace: project('idle'), maxDiffLines: 'many' }, 'maxDiffLines'],
      [{ task: 'x', workspace: project('idle'), check: 'ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD npm test' }, 'check'],
    ] as const) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json(), JSON.stringify(payload)).toMatchObject({ field });
    }
    const outside = await post({ task: 'x', workspace: '/etc' });
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toMatchObject({ field: 'workspace' });
    const usage = await cli(['loop', 'start', 'x', '-w', project('idle'), '--max-iterations', 'many']);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toContain('--max-iterations must be a whole number, got "many"');
    expect(await loopEvents()).toBe(before);
  });

  it('stops a loop that fails with the same error N times in a row (the same-error monitor)', async () => {
    const loopId = await start({ task: 'make the greeting check pass', workspace: project('greet'), check: GREETING_CHECK, maxIterations: 6, sameErrorLimit: 3 });
    const v = await ended(loopId);
    expect(v).toMatchObject({ status: 'stopped', stopReason: 'same-error' });
    expect(v.iterations).toHaveLength(3);
    const checks = v.iterations.map((i) => i.check!);
    expect(checks.every((c) => !c.passed && c.exitCode === 1)).toBe(true);
    // The raw outputs differ (pid, time); their signatures do not.
    expect(new Set(checks.map((c) => c.output)).size).toBe(3);
    expect(new Set(checks.map((c) => c.signature)).size).toBe(1);
    expect(v.stopDetail).toContain(String(checks[0].signature));
    // One checkpoint commit per iteration on the loop's branch, each under its ref.
    const log = gitOut(v.dir!, ['log', '--format=%s', v.branch!]).split('\n').filter((l) => l.startsWith(`loop ${loopId} iteration`));
    expect(log).toHaveLength(3);
    for (const i of v.iterations) expect(gitOut(v.dir!, ['rev-parse', `refs/headspace/loops/${loopId}/i${i.iteration}`]).trim()).toBe(i.checkpoint);
  });

  it('stops at the iteration boundary when the stop file is present', async () => {
    const loopId = await start({ task: 'tidy the changelog', workspace: project('changelog'), maxIterations: 5 });
    const v = await ended(loopId);
    expect(v).toMatchObject({ status: 'stopped', stopReason: 'stop-file' });
    expect(v.stopDetail).toBe('The stop file .auto/stop was present before iteration 2');
    expect(v.iterations).toHaveLength(1);
    expect(v.iterations[0]).toMatchObject({ status: 'ended', agentStatus: 'blocked' });
    // No second session was started.
    const sessions = (await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE type = 'session.started' AND data->>'runId' = $1`, [loopId])).rows[0].n;
    expect(sessions).toBe(1);
  });

  it('stops when the operator creates the stop file in the workspace while the loop runs', async () => {
    const loopId = await start({ task: 'polish the overnight docs', workspace: project('overnight'), maxIterations: 50 });
    await waitFor(async () => ((await view(loopId)).iterations.length > 0 ? true : undefined), { timeoutMs: 60_000, intervalMs: 100, message: 'the first iteration' });
    await mkdir(join(project('overnight'), '.auto'), { recursive: true });
    await writeFile(join(project('overnight'), '.auto', 'stop'), 'going to bed\n');
    const v = await ended(loopId);
    expect(v).toMatchObject({ status: 'stopped', stopReason: 'stop-file' });
    expect(v.iterations.length).toBeGreaterThan(0);
    expect(v.iterations.length).toBeLessThan(50);
    // Halted at a boundary: every iteration that began also ended with its checkpoint.
    expect(v.iterations.every((i) => i.status === 'ended' && i.checkpoint)).toBe(true);
  });

  it('stops on the diff limit and reverts the branch to the last good checkpoint', async () => {
    const loopId = await start({ task: 'generate the fixture data', workspace: project('fixtures'), maxDiffLines: 10, maxIterations: 5 });
    const v = await ended(loopId);
    expect(v).toMatchObject({ status: 'stopped', stopReason: 'diff-limit' });
    const [first] = v.iterations;
    expect(v.iterations).toHaveLength(1);
    expect(first.diffLines).toBe(40);
    expect(first.filesChanged).toEqual(['fixtures.csv']);
    expect(first.check).toBeNull();
    expect(v.revertedTo).toBe(first.baseCommit);
    // The branch is back at the last good checkpoint; the rejected iteration stays auditable under its ref.
    expect(gitOut(v.dir!, ['rev-parse', v.branch!]).trim()).toBe(first.baseCommit);
    expect(() => gitOut(v.dir!, ['show', `${v.branch}:fixtures.csv`])).toThrow();
    expect(gitOut(v.dir!, ['show', `refs/headspace/loops/${loopId}/i1:fixtures.csv`]).split('\n')[0]).toBe('id,name');
  });

  it('`headspace loop start` follows a loop whose second iteration reads the first one’s learning and succeeds', async () => {
    const out = await cli(['loop', 'start', 'fix the login check', '-w', project('login'), '-t', 'loops', '--check', LOGIN_CHECK, '--max-iterations', '4']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^loop \S+ started$/m);
    expect(out.stdout).toMatch(/— iteration 1 started \(a fresh session\)/);
    expect(out.stdout).toMatch(/iteration 1 ended \(partial\): check failed \(exit 1, signature [0-9a-f]{16}\); \d+ lines changed; checkpoint [0-9a-f]{12}; learned: bcrypt\.compare is async: always await it/);
    expect(out.stdout).toMatch(/\[turn 1\] (\[simulated\] )?The loop context says bcrypt\.compare is async, so I await it\./);
    expect(out.stdout).toMatch(/✔ loop \S+ succeeded \(succeeded\) {2}\[simulated\]/);
    const loopId = /^loop (\S+) started$/m.exec(out.stdout)![1];

    const v = await view(loopId);
    expect(v).toMatchObject({ status: 'succeeded', stopReason: 'succeeded', simulated: true });
    expect(v.iterations.map((i) => [i.agentStatus, i.check?.passed])).toEqual([
      ['partial', false],
      ['completed', true],
    ]);
    expect(v.iterations[0].learnings).toEqual(['bcrypt.compare is async: always await it']);

    // Each iteration a fresh session; only iteration 2's prompt (what the simulator was sent, and branched on) carries the learning.
    const prompts = (await h().db.pool.query(`SELECT data->>'prompt' AS prompt FROM orchestrator.events WHERE type = 'session.started' AND data->>'runId' = $1 ORDER BY global_position`, [loopId])).rows.map(
      (r) => r.prompt as string,
    );
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).not.toContain('bcrypt.compare is async');
    expect(prompts[1]).toContain('- bcrypt.compare is async: always await it (iteration 1)');
    expect(prompts[1]).toContain('AssertionError: login accepted a wrong password');
    // The loop-context file the second session read is in its checkpoint.
    expect(gitOut(v.dir!, ['show', `${v.iterations[1].checkpoint}:.headspace/loop-context.md`])).toContain('This is iteration 2 of at most 4.');
    expect(gitOut(v.dir!, ['show', `${v.branch}:login.mjs`])).toContain('return await compare(password, hash);');

    const status = await cli(['loop', 'status', loopId, '-t', 'loops']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('iterations: 2 of at most 4');
    const list = await waitFor(async () => ((r) => (r.stdout.includes(loopId) && r.stdout.includes('succeeded') ? r : undefined))(await cli(['loop', 'list', '-t', 'loops'])), {
      timeoutMs: 30_000,
      intervalMs: 300,
      message: 'the loops list to show the loop as succeeded',
    });
    expect(list.code).toBe(0);
    const stop = await cli(['loop', 'stop', loopId, '-t', 'loops']);
    expect(stop.stdout).toContain(`loop ${loopId} already succeeded`);
  });

  it('stops at the next boundary when the operator asks (POST .../stop), and not in another team', async () => {
    const loopId = await start({ task: 'polish the docs', workspace: project('idle'), maxIterations: 50 });
    const elsewhere = await h().call({ method: 'POST', url: `/api/v1/teams/other/loops/${loopId}/stop`, payload: {} }, h().adminToken);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'LOOP.NOT_FOUND' });
    const stopped = await h().call({ method: 'POST', url: `/api/v1/teams/loops/loops/${loopId}/stop`, payload: {} }, h().adminToken);
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json()).toMatchObject({ loopId, stopRequested: true });
    const v = await ended(loopId);
    expect(v).toMatchObject({ status: 'stopped', stopReason: 'stop-requested', stopRequested: true });
    expect(v.iterations.length).toBeLessThan(50);
    expect(v.iterations.every((i) => i.status === 'ended')).toBe(true);
  });
});
