import { describe, expect, it } from 'vitest';
import { processServiceName, serviceResource } from './resource';

describe('service resource', () => {
  it('names the service from OTEL_SERVICE_NAME, else from the app of the entry point', () => {
    expect(processServiceName({ OTEL_SERVICE_NAME: 'gateway' }, '/app/dist/apps/orchestrator/src/main.js')).toBe('gateway');
    expect(processServiceName({}, '/app/dist/apps/orchestrator/src/main.js')).toBe('orchestrator');
    expect(processServiceName({}, '/repo/apps/team-manager/src/main.ts')).toBe('team-manager');
    expect(processServiceName({}, '/repo/node_modules/vitest/dist/worker.js')).toBeUndefined();
  });

  it('carries name, version, namespace and instance, never the command line', () => {
    const { attributes } = serviceResource({ serviceName: 'gateway', serviceInstanceId: 'gw-1' }, { HEADSPACE_VERSION: '1.2.3' });
    expect(attributes).toMatchObject({
      'service.name': 'gateway',
      'service.version': '1.2.3',
      'service.namespace': 'headspace',
      'service.instance.id': 'gw-1',
    });
    expect(Object.keys(attributes).filter((key) => key.startsWith('process.command'))).toEqual([]);
  });
});
