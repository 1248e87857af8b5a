import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the real binary against the real services, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startGatewayHarness, type GatewayHarness } from '../../../../apps/gateway/src/testing/gateway-harness';

const repo = resolve(__dirname, '../../../..');
const BIN = join(repo, 'bin', 'headspace.js');

describe('headspace run <goal-file>', { timeout: 300_000 }, () => {
  let h: GatewayHarness;
  let dir: string;
  let endpoint: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hs-cli-run-'));
    h = await startGatewayHarness({
      label: 'clirun',
      orchestrator: true,
      costGovernor: true,
      env: { HS_WORKSPACES_DIR: join(dir, 'runs'), HS_AGENT_HOME: join(dir, 'agents'), HS_SIMULATOR_SCENARIOS: join(repo, 'examples', 'scenarios', 'word-stats') },
    });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h.adminToken, NO_COLOR: '1' }, timeout: 240_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('starts a run from a goal file, follows it to the end and prints the summary, exit code 0', async () => {
    const run = await cli(['run', join(repo, 'examples', 'word-stats', 'GOAL.md'), '-t', 'cli-run']);
    expect(run.stderr).not.toMatch(/✖/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✔ .* — completed \(done\) {2}\[simulated/);
    expect(run.stdout).toMatch(/QA rounds {4}2/);
    expect(run.stdout).toMatch(/by persona .*con \$/);
    expect(run.stdout).toMatch(/result {7}.*checkout \(branch headspace\/.*\/main\)/);
  });

  it('refuses a runtime other than built-in or claude-code with a usage error (exit code 1), starting nothing', async () => {
    const runs = async () => Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE type = 'run.started'`)).rows[0].n);
    const before = await runs();
    const run = await cli(['run', join(repo, 'examples', 'word-stats', 'GOAL.md'), '-t', 'cli-runtime', '--runtime', 'codex']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--runtime must be built-in or claude-code, got "codex"');
    expect(await runs()).toBe(before);
  });

  it('refuses a goal file that does not exist with a usage error (exit code 1) naming the path', async () => {
    const run = await cli(['run', join(dir, 'nope.md'), '-t', 'cli-run']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`No goal file at ${join(dir, 'nope.md')}`);
  });
});
