import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the real binary against the real services, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startGatewayHarness, type GatewayHarness } from '../../../../apps/gateway/src/testing/gateway-harness';

const repo = resolve(__dirname, '../../../..');
const BIN = join(repo, 'bin', 'headspace.js');
const team = 'agents-cli';

const REVIEWER = `---
name: reviewer
description: Reviews a change for correctness without editing anything. Use after an edit, e.g. "review src/greet.mjs".
tools: Read, Grep
model: haiku
maxTurns: 5
---
You review code and report concrete problems.
`;
const BROKEN = `---
name: broken
description: Has a model no alias names, e.g. "gpt-4".
model: gpt-4
---
Never loads.
`;

describe('custom agents through the REST API and `headspace agents`', { timeout: 120_000 }, () => {
  let h: GatewayHarness;
  let dir: string;
  let project: string;
  let endpoint: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hs-cli-agents-'));
    project = join(dir, 'project');
    await mkdir(join(project, '.headspace', 'agents'), { recursive: true });
    await writeFile(join(project, '.headspace', 'agents', 'reviewer.md'), REVIEWER);
    await writeFile(join(project, '.headspace', 'agents', 'broken.md'), BROKEN);
    h = await startGatewayHarness({
      label: 'cliagents',
      orchestrator: true,
      env: { HS_WORKSPACES_DIR: join(dir, 'runs'), HS_AGENT_HOME: join(dir, 'home'), HS_SOURCE_ROOTS: dir },
    });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { cwd: dir, env: { ...process.env, HEADSPACE_CONFIG: join(dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h.adminToken, NO_COLOR: '1' }, timeout: 60_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('GET /api/v1/teams/:team/agents lists the project’s agents over the templates and the invalid file with its field', async () => {
    const viewer = await h.issueToken('viewer', [team]);
    const res = await h.call({ method: 'GET', url: `/api/v1/teams/${team}/agents?source=${encodeURIComponent(project)}` }, viewer);
    expect(res.statusCode).toBe(200);
    const body = res.json<{ agents: Array<{ name: string; scope: string; tools?: string[] }>; errors: Array<{ file: string; field: string }> }>();
    expect(body.agents.find((a) => a.name === 'reviewer')).toMatchObject({ scope: 'project', tools: ['Read', 'Grep'] });
    expect(body.agents.find((a) => a.name === 'architect')).toMatchObject({ scope: 'built-in' });
    expect(body.errors).toEqual([expect.objectContaining({ file: join(project, '.headspace', 'agents', 'broken.md'), field: 'model' })]);
  });

  it('refuses a source outside HS_SOURCE_ROOTS or of the wrong shape with a 4xx naming `source`', async () => {
    const outside = await h.call({ method: 'GET', url: `/api/v1/teams/${team}/agents?source=${encodeURIComponent('/etc')}` }, h.adminToken);
    expect(outside.statusCode).toBeGreaterThanOrEqual(400);
    expect(outside.statusCode).toBeLessThan(500);
    expect(outside.json()).toMatchObject({ field: 'source' });
    const relative = await h.call({ method: 'GET', url: `/api/v1/teams/${team}/agents?source=project` }, h.adminToken);
    expect(relative.statusCode).toBe(400);
    expect(JSON.stringify(relative.json())).toContain('source');
  });

  it('POST /api/v1/agents/validate answers errors and warnings; a body without `text` is a 400 naming it', async () => {
    const viewer = await h.issueToken('viewer', [team]);
    const ok = await h.call({ method: 'POST', url: '/api/v1/agents/validate', payload: { file: 'reviewer.md', text: REVIEWER } }, viewer);
    expect(ok.json()).toEqual({ valid: true, name: 'reviewer', errors: [], warnings: [] });
    const missing = await h.call({ method: 'POST', url: '/api/v1/agents/validate', payload: { file: 'x.md' } }, viewer);
    expect(missing.statusCode).toBe(400);
    expect(JSON.stringify(missing.json())).toContain('text');
    const anonymous = await h.call({ method: 'POST', url: '/api/v1/agents/validate', payload: { file: 'reviewer.md', text: REVIEWER } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('`headspace agents validate` names the field of an invalid file (exit 2) and passes a valid one (exit 0)', async () => {
    const bad = await cli(['agents', 'validate', join(project, '.headspace', 'agents', 'broken.md')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/broken\.md: model: /);
    const good = await cli(['agents', 'validate', join(project, '.headspace', 'agents', 'reviewer.md')]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('agent reviewer is valid');
  });

  it('`headspace agents list --source <dir>` shows the agents and reports the invalid file', async () => {
    const listed = await cli(['agents', 'list', '-t', team, '--source', 'project']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/reviewer\s*│\s*project\s*│\s*claude-haiku/);
    expect(listed.stderr).toMatch(/broken\.md: model: /);
  });
});
