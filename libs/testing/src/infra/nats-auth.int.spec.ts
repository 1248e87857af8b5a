import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ServiceNames } from '@headspace/contracts';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsStatus } from './nats';
import { startLockedNatsServer, type LockedNatsServer } from './nats-auth';

let locked: LockedNatsServer;

beforeAll(async () => {
  locked = await startLockedNatsServer();
});

afterAll(async () => {
  await locked?.dispose();
});

/** The server's answer to a request on `subject` as `who`: a permission violation, or what came back. */
async function requestAs(who: Parameters<LockedNatsServer['connectAs']>[0], subject: string): Promise<string> {
  const nc = await locked.connectAs(who);
  try {
    await nc.request(subject, 'ping', { timeout: 1_000 });
    return 'answered';
  } catch (error) {
    return (error as Error).message;
  } finally {
    await nc.close();
  }
}

describe('a nats-server locked with generated per-service credentials', () => {
  it('refuses an anonymous connection', async () => {
    await expect(connect({ servers: locked.url, reconnect: false, timeout: 2_000 })).rejects.toThrow(/Authorization Violation/);
    expect(await natsStatus(locked.url)).toBe('unreachable');
  });

  it("refuses the team-manager's credentials publishing the cost-governor's command subjects", async () => {
    expect(await requestAs('team-manager', 'hs.cmd.cost-governor.set-budget')).toBe('Permissions Violation for Publish to "hs.cmd.cost-governor.set-budget"');
    expect(await requestAs('team-manager', 'hs.qry.cost-governor.get-budget')).toMatch(/Permissions Violation for Publish/);
  });

  it('lets a service request the services it talks to (no responder here, so no permission error)', async () => {
    expect(await requestAs('orchestrator', 'hs.cmd.cost-governor.may-spend')).toMatch(/no responders/i);
    expect(await requestAs('cost-governor', 'hs.cmd.team-manager.request-approval')).toMatch(/no responders/i);
  });

  it("refuses a service publishing another service's events", async () => {
    const nc = await locked.connectAs('orchestrator');
    const errors: string[] = [];
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') errors.push(String(s.error?.message));
    })();
    nc.publish('hs.evt.team-manager.task.created', '{}');
    nc.publish('hs.evt.orchestrator.run.started', '{}');
    await nc.flush();
    await expect.poll(() => errors).toContain('Permissions Violation for Publish to "hs.evt.team-manager.task.created"');
    expect(errors.join()).not.toContain('hs.evt.orchestrator');
    await nc.close();
  });

  it("refuses a service serving another's commands or reading other inboxes", async () => {
    const nc = await locked.connectAs('team-manager');
    const errors: string[] = [];
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') errors.push(String(s.error?.message));
    })();
    nc.subscribe('hs.cmd.cost-governor.>');
    nc.subscribe('_INBOX.>');
    nc.subscribe('hs.cmd.team-manager.>');
    await nc.flush();
    await expect.poll(() => errors.length).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual(
      expect.arrayContaining([
        'Permissions Violation for Subscription to "hs.cmd.cost-governor.>"',
        'Permissions Violation for Subscription to "_INBOX.>"',
      ]),
    );
    expect(errors.join()).not.toContain('"hs.cmd.team-manager.>"');
    await nc.close();
  });

  it('keeps every seed private and none in the server config', () => {
    const config = readFileSync(locked.auth.configFile, 'utf8');
    expect(statSync(dirname(locked.auth.configFile)).mode & 0o777).toBe(0o700);
    expect(statSync(locked.auth.configFile).mode & 0o777).toBe(0o600);
    for (const file of [locked.auth.adminSeedFile, ...ServiceNames.map((s) => locked.auth.seedFiles[s])]) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const seed = readFileSync(file, 'utf8').trim();
      expect(seed).toMatch(/^SU[A-Z2-7]+$/);
      expect(config).not.toContain(seed);
    }
  });
});
