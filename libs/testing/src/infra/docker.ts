import { request } from 'node:http';
import { existsSync } from 'node:fs';
import type { Log } from './util';

/** Where the infra harness gets PostgreSQL and NATS for a test run (the `HS_TEST_INFRA` switch). */
export type TestInfraMode = 'local' | 'containers';

/**
 * `HS_TEST_INFRA`: unset, empty or `local` → the servers on the default ports or local daemons;
 * `containers` → testcontainers. Any other value is refused, so a typo never quietly means local.
 */
export function testInfraMode(env: NodeJS.ProcessEnv = process.env): TestInfraMode {
  const value = env.HS_TEST_INFRA?.trim() ?? '';
  if (value === '' || value === 'local') return 'local';
  if (value === 'containers') return 'containers';
  throw new Error(`HS_TEST_INFRA=${value} is not a test infrastructure: use 'containers' (testcontainers, needs a Docker engine) or 'local' (the default)`);
}

/** The Docker engine address testcontainers and dockerEngineAvailable use. */
export function dockerHost(env: NodeJS.ProcessEnv = process.env): string {
  return env.DOCKER_HOST || 'unix:///var/run/docker.sock';
}

/** True when a Docker engine answers GET /_ping (DOCKER_HOST unix:// or tcp://, else /var/run/docker.sock). */
export function dockerEngineAvailable(timeoutMs = 1_500): Promise<boolean> {
  const host = dockerHost();
  const target = host.startsWith('unix://')
    ? { socketPath: host.slice('unix://'.length) }
    : (() => {
        const u = new URL(host.replace(/^tcp:/, 'http:'));
        return { host: u.hostname, port: Number(u.port || 2375) };
      })();
  if ('socketPath' in target && !existsSync(target.socketPath)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const req = request({ ...target, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** The switch asked for containers: without an engine that is an error, never a quiet fall back to local servers. */
export async function requireDockerEngine(): Promise<void> {
  if (await dockerEngineAvailable()) return;
  throw new Error(
    `HS_TEST_INFRA=containers, but no Docker engine answers at ${dockerHost()}: start Docker (or set DOCKER_HOST to a running engine), or unset HS_TEST_INFRA to use local PostgreSQL and nats-server`,
  );
}

export interface Containers {
  databaseUrl?: string;
  natsUrl?: string;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL 16 and NATS 2.10 (-js) with testcontainers. The modules load only here: the
 * local path (and `npm start`) never pays for them. Containers live until `stop` or the end of
 * this process (testcontainers' reaper removes them), so this suits a test session only.
 */
export async function startContainers(log: Log, want: { postgres: boolean; nats: boolean }): Promise<Containers> {
  const [{ GenericContainer, Wait }, { PostgreSqlContainer }] = await Promise.all([import('testcontainers'), import('@testcontainers/postgresql')]);
  const [postgres, nats] = await Promise.all([
    want.postgres
      ? (log('starting a postgres:16 container (testcontainers)'),
        new PostgreSqlContainer('postgres:16').withUsername('postgres').withPassword('postgres').withDatabase('postgres').start())
      : undefined,
    want.nats
      ? (log('starting a nats:2.10 -js container (testcontainers)'),
        new GenericContainer('nats:2.10').withCommand(['-js']).withExposedPorts(4222).withWaitStrategy(Wait.forLogMessage(/Server is ready/)).start())
      : undefined,
  ]);
  return {
    databaseUrl: postgres?.getConnectionUri(),
    natsUrl: nats ? `nats://${nats.getHost()}:${nats.getMappedPort(4222)}` : undefined,
    stop: async () => {
      await Promise.all([postgres?.stop(), nats?.stop()]);
    },
  };
}
