import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dockerEngineAvailable, testInfraMode } from './docker';
import { ensureInfra } from './ensure-infra';

const quiet = () => undefined;
const savedDockerHost = process.env.DOCKER_HOST;
const savedSwitch = process.env.HS_TEST_INFRA;
const cleanups: Array<() => void | Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  restore('DOCKER_HOST', savedDockerHost);
  restore('HS_TEST_INFRA', savedSwitch);
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** A unix socket that answers GET /_ping as a Docker engine does (and nothing else). */
async function pingOnlyEngine(status: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hs-engine-'));
  const socketPath = join(dir, 'docker.sock');
  const server: Server = createServer((req, res) => {
    res.statusCode = req.url === '/_ping' ? status : 404;
    res.end('OK');
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `unix://${socketPath}`;
}

function missingEngine(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hs-no-engine-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `unix://${join(dir, 'docker.sock')}`;
}

describe('HS_TEST_INFRA', () => {
  it('chooses local servers when unset, empty or local, and containers only when it says containers', () => {
    expect(testInfraMode({})).toBe('local');
    expect(testInfraMode({ HS_TEST_INFRA: '' })).toBe('local');
    expect(testInfraMode({ HS_TEST_INFRA: 'local' })).toBe('local');
    expect(testInfraMode({ HS_TEST_INFRA: 'containers' })).toBe('containers');
  });

  it('refuses any other value, naming the switch and its values', () => {
    expect(() => testInfraMode({ HS_TEST_INFRA: 'docker' })).toThrow(/HS_TEST_INFRA=docker .*'containers'.*'local'/);
  });

  it('fails with a clear message when it asks for containers and no Docker engine answers', async () => {
    const host = missingEngine();
    process.env.DOCKER_HOST = host;
    process.env.HS_TEST_INFRA = 'containers';
    await expect(ensureInfra({ log: quiet })).rejects.toThrow(
      `HS_TEST_INFRA=containers, but no Docker engine answers at ${host}: start Docker (or set DOCKER_HOST to a running engine), or unset HS_TEST_INFRA`,
    );
  });

  it('fails the same way for an engine address that answers, but not as a healthy engine', async () => {
    process.env.DOCKER_HOST = await pingOnlyEngine(500);
    await expect(ensureInfra({ infra: 'containers', log: quiet })).rejects.toThrow(/no Docker engine answers at unix:\/\//);
  });
});

describe('dockerEngineAvailable', () => {
  it('is true when DOCKER_HOST answers /_ping with 200', async () => {
    process.env.DOCKER_HOST = await pingOnlyEngine(200);
    expect(await dockerEngineAvailable()).toBe(true);
  });

  it('is false when nothing listens at DOCKER_HOST', async () => {
    process.env.DOCKER_HOST = missingEngine();
    expect(await dockerEngineAvailable()).toBe(false);
  });
});
