import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot, type Log } from './util';

/** True when a Docker engine answers GET /_ping (DOCKER_HOST unix:// or tcp://, else /var/run/docker.sock). */
export function dockerEngineAvailable(timeoutMs = 1_500): Promise<boolean> {
  const host = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
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

interface StartedContainer {
  getHost(): string;
  getMappedPort(port: number): number;
}
interface ContainerBuilder {
  withEnvironment(env: Record<string, string>): ContainerBuilder;
  withExposedPorts(...ports: number[]): ContainerBuilder;
  withCommand(cmd: string[]): ContainerBuilder;
  withWaitStrategy(strategy: unknown): ContainerBuilder;
  start(): Promise<StartedContainer>;
}
interface TestcontainersModule {
  GenericContainer: new (image: string) => ContainerBuilder;
  Wait: { forLogMessage(message: RegExp | string, times?: number): unknown };
}

/**
 * Starts PostgreSQL 16 and NATS 2.10 (-js) with testcontainers, when that optional package is
 * installed (it is not a dependency of this repo). Containers live as long as this process
 * (testcontainers' reaper removes them), so this suits a test session, not `npm start`.
 * Returns undefined — with the reason logged — when the path is unavailable.
 */
export async function startWithTestcontainers(
  log: Log,
  want: { postgres: boolean; nats: boolean },
): Promise<{ databaseUrl?: string; natsUrl?: string } | undefined> {
  let modulePath: string;
  try {
    modulePath = createRequire(join(repoRoot(), 'package.json')).resolve('testcontainers');
  } catch {
    log('Docker engine found, but the optional `testcontainers` package is not installed; skipping containers');
    return undefined;
  }
  const tc = (await import(modulePath)) as TestcontainersModule;
  const result: { databaseUrl?: string; natsUrl?: string } = {};
  if (want.postgres) {
    log('starting a postgres:16 container with testcontainers');
    const c = await new tc.GenericContainer('postgres:16')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(tc.Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    result.databaseUrl = `postgres://postgres@${c.getHost()}:${c.getMappedPort(5432)}/postgres`;
  }
  if (want.nats) {
    log('starting a nats:2.10 (-js) container with testcontainers');
    const c = await new tc.GenericContainer('nats:2.10').withCommand(['-js']).withExposedPorts(4222).start();
    result.natsUrl = `nats://${c.getHost()}:${c.getMappedPort(4222)}`;
  }
  return result;
}
