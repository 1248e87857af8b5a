import { afterEach, describe, expect, it } from 'vitest';
import { namespacedStreamName, setSubjectNamespace } from './namespace';
import { eventStreamName, serviceInboxPrefix, servicePermissions } from './nats-permissions';
import { ServiceNames } from './service-names';

afterEach(() => setSubjectNamespace(undefined));

describe('per-service NATS permissions', () => {
  it('names the event streams as the relay does, under a namespace too', () => {
    setSubjectNamespace('ci-7');
    expect(eventStreamName('team-manager', 'ci-7')).toBe(namespacedStreamName('HS_EVT_TEAM_MANAGER'));
  });

  it('lets each service publish its own events and no other service publish them', () => {
    for (const owner of ServiceNames.filter((s) => s !== 'gateway')) {
      for (const service of ServiceNames) {
        const publishes = servicePermissions(service, 'ns').publish.allow.includes(`ns.hs.evt.${owner}.>`);
        expect({ service, owner, publishes }).toEqual({ service, owner, publishes: service === owner });
      }
    }
  });

  it('lets a service subscribe to its own requests and inbox only', () => {
    expect(servicePermissions('cost-governor', 'ns').subscribe.allow.sort()).toEqual(
      [`${serviceInboxPrefix('cost-governor', 'ns')}.>`, 'ns.hs.cmd.cost-governor.>', 'ns.hs.qry.cost-governor.>'].sort(),
    );
    expect(servicePermissions('gateway').subscribe.allow).toEqual(['_INBOX.gateway.>']);
  });

  it('keeps the team-manager away from every other service but Leon, whom it tells of its own errors', () => {
    const allowed = servicePermissions('team-manager').publish.allow;
    expect(allowed.filter((s) => /^hs\.(cmd|qry)\./.test(s)).sort()).toEqual(['hs.cmd.ops-leon.>', 'hs.cmd.team-manager.>', 'hs.qry.ops-leon.>', 'hs.qry.team-manager.>']);
    expect(allowed.some((s) => s.includes('COST_GOVERNOR'))).toBe(false);
  });
});
