import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayHarness } from '../testing/gateway-harness';
import { startRunHarness, type RunHarness } from './testing/run-harness';

/** A run's runtime through REST: every session of the run on `built-in` or `claude-code`. */
describe('starting a run with a runtime', () => {
  let run: RunHarness;
  let h: GatewayHarness;
  let dir: string;
  const start = (extra: Record<string, unknown>) =>
    h.call(
      {
        method: 'POST',
        url: '/api/v1/teams/red/runs',
        payload: { goal: '# Add topWords', source: join(dir, 'projects', 'app'), mode: 'v1', operator: 'auto', tasks: [{ key: 'T1', subject: 'x', pool: 'backend', dependsOn: [] }], ...extra },
      },
      h.adminToken,
    );
  const started = async () => (await h.db.pool.query<{ runtime: string | null }>(`SELECT data->>'runtime' AS runtime FROM orchestrator.events WHERE type = 'run.started' ORDER BY global_position`)).rows;

  beforeAll(async () => {
    run = await startRunHarness({ label: 'runruntime', sourceRoots: true });
    ({ h, dir } = run);
    await mkdir(join(dir, 'projects', 'app'), { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await run?.close();
  });

  it('refuses an unknown runtime with a 400 naming `runtime`, and records nothing', async () => {
    const res = await start({ runtime: 'claude-cli' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ field: 'runtime' });
    expect(await started()).toEqual([]);
  });

  it('records the runtime a run names on run.started', async () => {
    const res = await start({ runtime: 'claude-code' });
    expect(res.statusCode).toBe(201);
    expect(await started()).toEqual([{ runtime: 'claude-code' }]);
  });

  it('documents the field with its two values in the OpenAPI document', async () => {
    const doc = (await h.call({ method: 'GET', url: '/api/openapi.json' }, h.adminToken)).json();
    const body = JSON.stringify(doc.paths['/api/v1/teams/{team}/runs'].post.requestBody);
    expect(body).toContain('"runtime"');
    expect(body).toContain('"claude-code"');
  });
});
