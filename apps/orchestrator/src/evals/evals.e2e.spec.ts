import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvalComparison, EvalRunView } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');

/**
 * Five tasks on the simulator's `any-eval-release-notes` script (it writes NOTES.md naming the model
 * it ran on) and its `eval-judge`: every grader kind, and `notes-model` seeded to pass on Sonnet and
 * fail on Haiku. `notes-command` runs in a checkout of its fixture directory (a CHANGELOG.md, no README.md).
 */
const SUITE = `
name: release
description: Release notes, graded five ways.
tasks:
  - id: notes-exist
    prompt: Write the release notes to NOTES.md.
    graders:
      - { type: file, path: NOTES.md }
  - id: notes-heading
    prompt: Write the release notes with a top-level heading.
    graders:
      - { type: file, path: NOTES.md, matches: "^# Release notes$" }
  - id: notes-command
    prompt: Write the release notes next to the changelog; the check greps them.
    fixture: evals/fixtures/changelog
    graders:
      - { type: command, command: "test -f CHANGELOG.md && test ! -e README.md && grep -q 'Release notes' NOTES.md" }
  - id: notes-rubric
    prompt: Write clear release notes.
    weight: 2
    graders:
      - { type: file, path: NOTES.md, contains: "- " }
      - { type: rubric, rubric: "The notes list at least one change.", passScore: 0.6 }
  - id: notes-model
    prompt: Write the release notes, written by Sonnet.
    graders:
      - { type: file, path: NOTES.md, matches: "sonnet" }
`;

/**
 * Evaluations end to end through the gateway and the CLI: a suite of five tasks runs on two models,
 * `compare` lists the seeded regression, and CI mode exits 6 on it and 0 without one.
 */
describe('evaluations (POST /api/v1/teams/:team/evals/runs, headspace eval)', { timeout: 400_000 }, () => {
  let run: RunHarness;
  let endpoint: string;
  const team = 'release';
  const h = () => run.h;
  const project = (name: string) => join(run.dir, 'projects', name);
  const api = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => h().call({ method, url, ...(payload ? { payload } : {}) }, h().adminToken);
  const view = async (id: string) => (await api('GET', `/api/v1/teams/${team}/evals/runs/${id}`)).json() as EvalRunView;
  const ended = (id: string) => waitFor(async () => ((v) => (v.status === 'running' ? undefined : v))(await view(id)), { timeoutMs: 300_000, intervalMs: 250, message: `eval run ${id} to end` });
  const evalEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'evalrun-%'`)).rows[0].n);

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, HEADSPACE_TEAM: team, NO_COLOR: '1' }, timeout: 330_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  let sonnetRun: string;
  let haikuRun: string;

  beforeAll(async () => {
    run = await startRunHarness({ label: 'evals', sourceRoots: true });
    await mkdir(join(project(team), 'evals'), { recursive: true });
    await writeFile(join(project(team), 'README.md'), '# release\n');
    await writeFile(join(project(team), 'evals', 'release.yaml'), SUITE);
    await writeFile(join(project(team), 'evals', 'broken.yaml'), SUITE.replace('{ type: file, path: NOTES.md }', '{ type: file, path: ../NOTES.md }'));
    await writeFile(join(project(team), 'evals', 'nofixture.yaml'), SUITE.replace('evals/fixtures/changelog', 'evals/fixtures/missing'));
    await mkdir(join(project(team), 'evals', 'fixtures', 'changelog'), { recursive: true });
    await writeFile(join(project(team), 'evals', 'fixtures', 'changelog', 'CHANGELOG.md'), '# Changelog\n');
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await run?.close();
  });

  it('refuses a bad suite or request with a 4xx naming the field and writes nothing', async () => {
    const before = await evalEvents();
    for (const [payload, status, field] of [
      [{ workspace: project(team), suite: 'evals/broken.yaml' }, 400, 'suite.tasks.0.graders.0.path'],
      [{ workspace: project(team), suite: 'evals/missing.yaml' }, 400, 'suite'],
      [{ workspace: project(team), suite: 'evals/nofixture.yaml' }, 400, 'suite.tasks.2.fixture'],
      [{ workspace: project(team), suite: '../release.yaml' }, 400, 'suite'],
      [{ workspace: project(team), suite: 'evals/release.yaml', effort: 'max' }, 400, 'effort'],
      [{ workspace: project(team), suite: 'evals/release.yaml', model: 'gpt-2' }, 400, 'model'],
      [{ workspace: project(team), suite: 'evals/release.yaml', agent: 'nobody' }, 400, 'agent'],
      [{ workspace: project(team), suite: 'evals/release.yaml', baseline: 'eval-missing-1' }, 404, 'baseline'],
      [{ workspace: '/etc', suite: 'evals/release.yaml' }, 403, 'workspace'],
    ] as const) {
      const res = await api('POST', `/api/v1/teams/${team}/evals/runs`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json(), JSON.stringify(payload)).toMatchObject({ field });
    }
    const usage = await cli(['eval', 'compare', 'a', 'b', '--threshold', 'lots']);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('--threshold must be a number from 0 to 1, got "lots"');
    expect(await evalEvents()).toBe(before);
  });

  it('runs the suite on Sonnet through the API: every task passes, scored and costed', async () => {
    const res = await api('POST', `/api/v1/teams/${team}/evals/runs`, { workspace: project(team), suite: 'evals/release.yaml', model: 'sonnet' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ tasks: 5 });
    sonnetRun = (res.json() as { evalRunId: string }).evalRunId;
    const v = await ended(sonnetRun);
    // Weighted by task: notes-rubric (weight 2) scores 0.9, its judge's 0.8 beside its file check's 1.
    expect(v).toMatchObject({ status: 'completed', score: 0.9667, passed: 5, total: 5, simulated: true, config: { model: 'sonnet' } });
    expect(v.tasks.every((t) => t.model?.includes('sonnet') && t.askId?.startsWith(`${sonnetRun}-t`))).toBe(true);
    const rubric = v.tasks.find((t) => t.taskId === 'notes-rubric')!;
    expect(rubric.grades.map((g) => [g.type, g.passed])).toEqual([['file', true], ['rubric', true]]);
    expect(rubric.grades[1]!.score).toBe(0.8);
    expect(v.tasks.find((t) => t.taskId === 'notes-command')!.grades[0]!.detail).toMatch(/exited 0/);
    // Each task's ask recorded its cost through the governor.
    expect(v.tasks.every((t) => t.costUsd !== null)).toBe(true);
  });

  it('runs it on Haiku through the CLI with the Sonnet run as baseline: CI mode exits 6 on the seeded regression', async () => {
    const out = await cli(['eval', 'run', 'release', '-w', project(team), '--model', 'haiku', '--baseline', sonnetRun, '--ci']);
    expect(out.code, out.stderr + out.stdout).toBe(6);
    expect(out.stdout).toMatch(/FAIL notes-model {2}score 0\.00/);
    expect(out.stdout).toMatch(/REGRESSED notes-model {2}1\.00 → 0\.00 \(-1\.00\) {2}passed in the base run, fails now/);
    expect(out.stderr).toContain(`1 regression(s) against ${sonnetRun}: notes-model`);
    haikuRun = /eval run (\S+) started/.exec(out.stdout)![1]!;
    expect(await view(haikuRun)).toMatchObject({ status: 'completed', passed: 4, total: 5, score: 0.8, baseline: sonnetRun });
  });

  it('compare lists the regression through the API and the CLI; CI mode exits 0 without one', async () => {
    const res = await api('GET', `/api/v1/teams/${team}/evals/compare?base=${sonnetRun}&head=${haikuRun}`);
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json() as EvalComparison;
    expect(c.regressions.map((r) => r.taskId)).toEqual(['notes-model']);
    expect(c.tasks).toHaveLength(5);

    const regressed = await cli(['eval', 'compare', sonnetRun, haikuRun, '--ci']);
    expect(regressed.code).toBe(6);
    expect(regressed.stdout).toContain('1 regression(s): notes-model');
    // The other way round Haiku is the baseline: Sonnet only improves on it.
    const improved = await cli(['eval', 'compare', haikuRun, sonnetRun, '--ci']);
    expect(improved.code, improved.stderr).toBe(0);
    expect(improved.stdout).toContain('no regressions');

    const list = await cli(['eval', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(sonnetRun);
    expect(list.stdout).toContain(haikuRun);
    const unknown = await api('GET', `/api/v1/teams/${team}/evals/compare?base=${sonnetRun}&head=nope-1`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ field: 'head' });
  });
});
