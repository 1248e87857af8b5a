import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceNames } from '@headspace/contracts';
import { connectNats } from '@headspace/platform';
import { ensureInfra, freePort, natsStatus, stopLocalServers } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceNatsEnv } from './service-nats';

describe('NATS credentials under npm start', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'hs-start-nats-'));
  let port: number;

  afterAll(async () => {
    if (port) await stopLocalServers({ stateDir, ports: [port] });
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('runs its own locked nats-server when NATS_URL is not given, and gives each service only its own nkey', async () => {
    port = await freePort();
    const infra = await ensureInfra({ infra: 'local', stateDir, lockedNats: { port }, log: () => undefined });
    expect(infra.natsUrl).toBe(`nats://127.0.0.1:${port}`);
    expect(infra.natsAuthDir).toBe(join(stateDir, 'nats'));
    await expect(connect({ servers: infra.natsUrl, reconnect: false, timeout: 2_000 })).rejects.toThrow(/Authorization Violation/);

    const startEnv = { NATS_URL: infra.natsUrl, HS_NATS_AUTH_DIR: infra.natsAuthDir, NATS_USER: 'inherited', NATS_PASSWORD: 'inherited' };
    for (const service of ServiceNames) {
      const env = serviceNatsEnv(service, startEnv);
      expect(env).toEqual({ NATS_USER: '', NATS_PASSWORD: '', NATS_CREDS: '', NATS_NKEY_SEED_FILE: join(stateDir, 'nats', `${service}.nk`) });
      const nc = await connectNats({ natsUrl: infra.natsUrl, name: `start-spec-${service}`, service, auth: { NATS_NKEY_SEED_FILE: env.NATS_NKEY_SEED_FILE } });
      const denied = service === 'team-manager' ? 'hs.cmd.cost-governor.set-budget' : 'hs.cmd.nobody.thing';
      await expect(nc.request(denied, '{}', { timeout: 1_000 })).rejects.toThrow(`Permissions Violation for Publish to "${denied}"`);
      await nc.close();
    }

    // A second start reuses the running server and its credentials.
    const again = await ensureInfra({ infra: 'local', stateDir, lockedNats: { port }, log: () => undefined });
    expect(again.provisioned.join()).not.toContain('nats');
    const nc = await connectNats({ natsUrl: again.natsUrl, name: 'start-spec-again', service: 'gateway', auth: { NATS_NKEY_SEED_FILE: join(stateDir, 'nats', 'gateway.nk') } });
    await nc.close();
  });

  it('restarts the running server when the permissions change (here: HS_NAMESPACE)', async () => {
    const moved = await ensureInfra({ infra: 'local', stateDir, lockedNats: { port, namespace: 'moved' }, log: () => undefined });
    expect(moved.provisioned.join()).toContain('locked nats-server');
    const nc = await connectNats({ natsUrl: moved.natsUrl, name: 'start-spec-moved', service: 'team-manager', namespace: 'moved', auth: { NATS_NKEY_SEED_FILE: join(stateDir, 'nats', 'team-manager.nk') } });
    await expect(nc.request('moved.hs.cmd.team-manager.create-team', '{}', { timeout: 1_000 })).rejects.toThrow(/no responders/i);
    await expect(nc.request('hs.cmd.team-manager.create-team', '{}', { timeout: 1_000 })).rejects.toThrow(/Permissions Violation/);
    await nc.close();
  });

  it("stops the locked server with the other local daemons (ensure-infra.cli.ts --stop)", async () => {
    expect(await stopLocalServers({ stateDir, ports: [port] })).toEqual([`nats on 127.0.0.1:${port}`]);
    expect(await natsStatus(`nats://127.0.0.1:${port}`)).toBe('unreachable');
  });

  it("maps an operator's per-service credentials to that service's NATS_* only", () => {
    const env = {
      NATS_URL: 'tls://nats.example:4222',
      NATS_PASSWORD: 'shared',
      HS_ORCHESTRATOR_NATS_USER: 'orch',
      HS_ORCHESTRATOR_NATS_PASSWORD: 'o-secret',
      HS_ORCHESTRATOR_NATS_TLS_CERT: '/etc/orch.pem',
      HS_COST_GOVERNOR_NATS_PASSWORD: 'cg-secret',
    };
    const blanked = { HS_ORCHESTRATOR_NATS_USER: '', HS_ORCHESTRATOR_NATS_PASSWORD: '', HS_ORCHESTRATOR_NATS_TLS_CERT: '', HS_COST_GOVERNOR_NATS_PASSWORD: '' };
    expect(serviceNatsEnv('orchestrator', env)).toEqual({ ...blanked, NATS_USER: 'orch', NATS_PASSWORD: 'o-secret', NATS_NKEY_SEED_FILE: '', NATS_CREDS: '', NATS_TLS_CERT: '/etc/orch.pem' });
    // No per-service credentials of its own: the shared ones, and none of the others'.
    expect(serviceNatsEnv('team-manager', env)).toEqual(blanked);
  });
});
