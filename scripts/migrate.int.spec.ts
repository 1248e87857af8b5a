import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTeam, getTeam, setSubjectNamespace } from '@headspace/contracts';
import { sendRequest } from '@headspace/messaging';
import { serviceProcessEnv } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, freePort, startPgServer, waitFor, type PgServerHandle, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceCommand } from './service-command';

const ROOT = join(__dirname, '..');
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const ROLES = ['hs_migrator', 'hs_gateway', 'hs_team_manager', 'hs_orchestrator', 'hs_cost_governor', 'hs_ops_leon'];
// No HS_DB_PASSWORD_MIGRATOR: the administrator's connection takes the migration role on (SET ROLE).
const passwords = Object.fromEntries(
  ['GATEWAY', 'TEAM_MANAGER', 'ORCHESTRATOR', 'COST_GOVERNOR', 'OPS_LEON'].map((name) => [`HS_DB_PASSWORD_${name}`, `pw-${name}-${randomBytes(6).toString('hex')}`]),
);

function runMigrate(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'scripts', 'migrate.ts')], {
    cwd: ROOT,
    env: { ...process.env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

describe('npm run migrate as the migration role, then a service as its own role', () => {
  // Roles are cluster-wide: a PostgreSQL of the spec's own, whose roles log in with scram passwords.
  let server: PgServerHandle;
  let db: TestDatabase;
  let nc: NatsConnection;
  let service: ChildProcess | undefined;
  const namespace = `roles-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    server = await startPgServer();
    db = await createTestDatabase('migrate', { adminUrl: server.url });
    const hba = (await db.pool.query<{ hba_file: string }>('SHOW hba_file')).rows[0].hba_file;
    writeFileSync(hba, `host all ${ROLES.join(',')} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
    await db.pool.query('SELECT pg_reload_conf()');
    setSubjectNamespace(namespace);
    nc = await connect({ servers: natsUrl });
  });
  afterAll(async () => {
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service!.once('exit', resolve));
      service.kill('SIGTERM');
      await exited;
    }
    setSubjectNamespace(undefined);
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db?.drop();
    await server?.dispose();
  });

  it('creates the roles, migrates every schema as hs_migrator, and a second run finds all up to date', async () => {
    const first = await runMigrate({ DATABASE_URL: db.url, ...passwords });
    expect(first.stderr).toContain('created role hs_migrator');
    expect(first.code).toBe(0);
    for (const schema of ['gateway', 'team_manager', 'orchestrator', 'cost_governor', 'ops_leon']) {
      expect(first.stderr).toMatch(new RegExp(`schema ${schema}: applied event-store/0001_event_store.sql.*\\(as hs_migrator; hs_${schema} may read and append its events only\\)`));
    }
    const owners = await db.pool.query<{ owner: string }>(`SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname IN ('gateway', 'team_manager', 'orchestrator', 'cost_governor', 'ops_leon')`);
    expect(owners.rows).toEqual([{ owner: 'hs_migrator' }]);
    expect(first.stderr).not.toContain(passwords.HS_DB_PASSWORD_TEAM_MANAGER);

    const second = await runMigrate({ DATABASE_URL: db.url, ...passwords });
    expect(second.code).toBe(0);
    expect(second.stderr.match(/: up to date \(as hs_migrator/g)).toHaveLength(5);
  });

  it('an administrator that may not create roles migrates without them, warning, unless HS_DB_ROLES=true', async () => {
    await db.pool.query('CREATE ROLE plain_owner LOGIN');
    await db.pool.query(`CREATE DATABASE ${db.name}_plain OWNER plain_owner`);
    const url = new URL(db.url);
    url.username = 'plain_owner';
    url.pathname = `/${db.name}_plain`;
    try {
      const insisted = await runMigrate({ DATABASE_URL: url.toString(), HS_DB_ROLES: 'true' });
      expect(insisted.code).toBe(1);
      expect(insisted.stderr).toMatch(/cannot provision the database roles: .*HS_DB_ROLES=false/);
      const fallback = await runMigrate({ DATABASE_URL: url.toString(), HS_DB_ROLES: '' });
      expect(fallback.code).toBe(0);
      expect(fallback.stderr).toContain('WARNING: no per-service PostgreSQL roles, services connect as DATABASE_URL');
      expect(fallback.stderr).toMatch(/schema ops_leon: applied event-store\/0001_event_store\.sql, ops-leon\/src\/migrations\/0001_ops_leon\.sql/);
    } finally {
      await db.pool.query(`DROP DATABASE ${db.name}_plain WITH (FORCE)`);
    }
  });

  it('the team-manager started with only its own URL serves a command (append) and a query (projection) as hs_team_manager', async () => {
    const port = await freePort();
    const env = serviceProcessEnv('team-manager', { ...process.env, DATABASE_URL: db.url, ...passwords }, true);
    expect(new URL(env.DATABASE_URL!).username).toBe('hs_team_manager');
    service = spawn(process.execPath, serviceCommand('team-manager', ROOT), {
      cwd: ROOT,
      env: { ...env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'), NATS_URL: natsUrl, HS_NAMESPACE: namespace, HTTP_PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    await waitFor(
      async () => {
        if (service!.exitCode !== null) throw new Error(`team-manager exited with ${service!.exitCode}`);
        return (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 90_000, message: 'the team-manager to be ready' },
    );
    const name = `roles-${randomBytes(3).toString('hex')}`;
    const created = await sendRequest(nc, createTeam, { name }, { timeoutMs: 15_000 });
    expect(created.result.name).toBe(name);
    const team = await waitFor(
      async () => (await sendRequest(nc, getTeam, { name }, { timeoutMs: 15_000 }).catch(() => undefined))?.result,
      { timeoutMs: 30_000, message: 'the team to be projected' },
    );
    expect(team).toMatchObject({ name });

    const sessions = await db.pool.query<{ usename: string }>(`SELECT DISTINCT usename FROM pg_stat_activity WHERE application_name LIKE 'team-manager-%'`);
    expect(sessions.rows).toEqual([{ usename: 'hs_team_manager' }]);
    const appended = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM team_manager.events WHERE stream_id LIKE $1`, [`%${name}%`]);
    expect(appended.rows[0].n).toBeGreaterThan(0);
  });
});
