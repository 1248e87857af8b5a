import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator, team-manager and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');

describe('topology auto: the orchestrator chooses one agent or the agent team, and says why', { timeout: 300_000 }, () => {
  let run: RunHarness;
  let endpoint: string;
  let project: string;
  const h = () => run.h;
  const requestEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'request-%'`)).rows[0].n);

  beforeAll(async () => {
    run = await startRunHarness({ label: 'requests', sourceRoots: true });
    project = join(run.dir, 'projects', 'demo');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'README.md'), '# Demo\n\nThis is teh demo project.\n');
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await run?.close();
  });

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 240_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('`headspace request "fix the typo in README.md"` chooses one agent, records why, and the ask fixes it', async () => {
    const out = await cli(['request', 'fix the typo in README.md', '-w', project]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^topology: one agent \(ask\), chosen — names 1 file: README\.md; a small, clear change: one agent$/m);
    expect(out.stdout).toMatch(/✔ ask (\S+) completed/);
    const askId = /✔ ask (\S+) completed/.exec(out.stdout)![1];

    const recorded = await h().call({ method: 'GET', url: `/api/v1/teams/demo/requests/${askId}` }, h().adminToken);
    expect(recorded.statusCode).toBe(200);
    expect(recorded.json()).toMatchObject({ requestId: askId, topology: 'ask', auto: true, startedId: askId, signals: { filesAffected: 1, ambiguity: 'low' } });
    const ask = (await h().call({ method: 'GET', url: `/api/v1/teams/demo/asks/${askId}` }, h().adminToken)).json() as { status: string; filesChanged: string[] };
    expect(ask).toMatchObject({ status: 'completed', filesChanged: ['README.md'] });
  });

  it('a wide, risky request is given to the agent team: a run starts under the request’s id', async () => {
    const res = await h().call(
      { method: 'POST', url: '/api/v1/teams/demo/requests', payload: { prompt: 'refactor the authentication across the whole codebase', workspace: project } },
      h().adminToken,
    );
    expect(res.statusCode).toBe(201);
    const body = res.json() as { requestId: string; topology: string; runId: string; reasons: string[] };
    expect(body).toMatchObject({ topology: 'run', runId: body.requestId });
    expect(body.reasons).toContain('5+ files and risky work: an agent team (spec, tasks, QA, review)');
    const started = await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id = $1 AND type = 'run.started'`, [`run-${body.runId}`]);
    expect(started.rows[0].n).toBe(1);
  });

  it('a refused request (workspace outside the source roots, bad topology) records nothing', async () => {
    const before = await requestEvents();
    const outside = await h().call({ method: 'POST', url: '/api/v1/teams/demo/requests', payload: { prompt: 'fix the typo in README.md', workspace: '/etc' } }, h().adminToken);
    expect(outside.statusCode).toBe(403);
    expect(outside.json().field).toBe('workspace');
    const bad = await h().call({ method: 'POST', url: '/api/v1/teams/demo/requests', payload: { prompt: 'x', workspace: project, topology: 'swarm' } }, h().adminToken);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('topology');
    expect(await requestEvents()).toBe(before);
  });
});
