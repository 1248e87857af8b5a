import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

let h: GatewayHarness;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hs-parallel-edits-'));
  await mkdir(join(dir, 'project'));
  await writeFile(join(dir, 'project', 'README.md'), '# project\n\nSource line.\n');
  h = await startGatewayHarness({
    label: 'paralleledits',
    orchestrator: true,
    costGovernor: true,
    env: {
      HS_WORKSPACES_DIR: join(dir, 'runs'),
      HS_SOURCE_ROOTS: join(dir, 'project'),
      HS_AGENT_HOME: join(dir, 'agents'),
      HS_SIMULATOR_SCENARIOS: join(__dirname, 'testing', 'parallel-edits-scenarios'),
      RUN_SWEEP_MS: '500',
    },
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('two personas editing the same file in parallel', () => {
  it('end with both changes merged through a conflict task for the second author, never a silent overwrite', async () => {
    const tasks = ['P1', 'P2'].map((key) => ({ key, subject: `Edit the README's source line (${key})`, pool: 'backend', dependsOn: [] }));
    const res = await h.call(
      { method: 'POST', url: '/api/v1/teams/parallel/runs', payload: { goal: '# Parallel edits\nTwo builders change the same README line.', source: join(dir, 'project'), mode: 'v1', operator: 'auto', tasks } },
      h.adminToken,
    );
    expect(res.statusCode).toBe(201);
    const { runId } = res.json() as { runId: string };
    const view = await waitFor(
      async () => {
        const v = (await h.call({ method: 'GET', url: `/api/v1/teams/parallel/runs/${runId}` }, h.adminToken)).json() as {
          phase: string;
          resultDir: string;
          tasks: Array<{ key: string; status: string; persona: string | null; origin: string }>;
        };
        if (v.phase === 'failed') throw new Error(`run failed: ${JSON.stringify(v)}`);
        return v.phase === 'completed' ? v : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200, message: 'the run to complete' },
    );

    // The two tasks ran side by side, on two personas.
    const p1 = view.tasks.find((t) => t.key === 'P1')!;
    const p2 = view.tasks.find((t) => t.key === 'P2')!;
    expect(p1.persona).not.toBe(p2.persona);
    const { rows } = await h.db.pool.query(`SELECT type, data FROM orchestrator.events WHERE stream_id = $1 ORDER BY stream_version`, [`run-${runId}`]);
    const starts = rows.filter((r) => r.type === 'run.session-started' && ['P1', 'P2'].includes(r.data.taskKey));
    const firstFinish = rows.findIndex((r) => r.type === 'run.task-finished');
    expect(rows.indexOf(starts[1])).toBeLessThan(firstFinish);

    // The second merge conflicted: its author got a conflict task, and it was merged.
    const conflicted = rows.find((r) => r.type === 'run.task-conflicted');
    expect(conflicted?.data).toMatchObject({ files: ['README.md'] });
    const conflictTask = view.tasks.find((t) => t.origin === 'merge-conflict')!;
    expect(conflictTask).toMatchObject({ status: 'merged', persona: conflicted!.data.taskKey === 'P2' ? p2.persona : p1.persona });

    // Both edits survive; no conflict markers.
    const readme = await readFile(join(view.resultDir, 'README.md'), 'utf8');
    expect(readme).toContain('Source line, edited by P1.');
    expect(readme).toContain('Source line, edited by P2.');
    expect(readme).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)/m);
  });
});
