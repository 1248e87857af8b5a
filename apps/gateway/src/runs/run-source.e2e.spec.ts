import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayHarness } from '../testing/gateway-harness';
import { startRunHarness, type RunHarness } from './testing/run-harness';

/** Starting a run through REST with the orchestrator behind it, HS_SOURCE_ROOTS = one projects directory. */
describe('a run source outside the allowed roots', () => {
  let run: RunHarness;
  let h: GatewayHarness;
  let dir: string;
  const runEvents = async () => Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'run-%'`)).rows[0].n);
  const start = (source: string) =>
    h.call({ method: 'POST', url: '/api/v1/teams/red/runs', payload: { goal: '# Add topWords', source, mode: 'v1', operator: 'auto', tasks: [{ key: 'T1', subject: 'x', pool: 'backend', dependsOn: [] }] } }, h.adminToken);

  beforeAll(async () => {
    run = await startRunHarness({ label: 'runsource', sourceRoots: true });
    ({ h, dir } = run);
    await mkdir(join(dir, 'projects', 'app'), { recursive: true });
    await mkdir(join(dir, 'private'));
    await writeFile(join(dir, 'private', 'secret.txt'), 'not for agents\n');
    await symlink(join(dir, 'private'), join(dir, 'projects', 'link-out'));
  }, 120_000);
  afterAll(async () => {
    await run?.close();
  });

  it('is refused with a problem naming `source`, through `..` and symlinks too, and nothing is written', async () => {
    const before = await runEvents();
    for (const source of ['/etc', join(dir, 'private'), join(dir, 'projects', '..', 'private'), join(dir, 'projects', 'link-out'), `file://${join(dir, 'private')}`]) {
      const res = await start(source);
      expect({ source, status: res.statusCode }).toEqual({ source, status: 403 });
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'RUN.SOURCE_NOT_ALLOWED', field: 'source' });
    }
    expect(await runEvents()).toBe(before);
  });

  it('a source of a refused shape is 400 naming `source` at the gateway (relative path, other transports, credentials in the URL)', async () => {
    for (const source of ['projects/app', 'ext::sh -c id', 'http://example.com/a.git', 'https://x:ghp_secret@github.com/a/b.git']) {
      const res = await start(source);
      expect({ source, status: res.statusCode }).toEqual({ source, status: 400 });
      expect(res.json().field).toBe('source');
    }
    expect(await runEvents()).toBe(0);
  });

  it('a directory under a root starts the run, recorded by its real path', async () => {
    const res = await start(join(dir, 'projects', 'app'));
    expect(res.statusCode).toBe(201);
    const { rows } = await h.db.pool.query(`SELECT data->>'source' AS source FROM orchestrator.events WHERE type = 'run.started'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].source).toMatch(/\/projects\/app$/);
  });
});
