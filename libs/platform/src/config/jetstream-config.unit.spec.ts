import { describe, expect, it } from 'vitest';
import { baseConfigSchema } from './base-config.schema';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const valid = { HTTP_PORT: '3000', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', NATS_URL: 'nats://127.0.0.1:4222' };

describe('JetStream stream settings in the configuration', () => {
  it('defaults to file storage and no placement, and reads storage, cluster and comma-separated tags', () => {
    const defaults = loadConfig(baseConfigSchema, valid);
    expect([defaults.HS_JETSTREAM_STORAGE, defaults.HS_JETSTREAM_PLACEMENT_CLUSTER, defaults.HS_JETSTREAM_PLACEMENT_TAGS]).toEqual(['file', undefined, undefined]);
    expect(
      loadConfig(baseConfigSchema, { ...valid, HS_JETSTREAM_STORAGE: 'memory', HS_JETSTREAM_PLACEMENT_CLUSTER: 'eu-west', HS_JETSTREAM_PLACEMENT_TAGS: 'ssd,az:eu-1a' }),
    ).toMatchObject({ HS_JETSTREAM_STORAGE: 'memory', HS_JETSTREAM_PLACEMENT_CLUSTER: 'eu-west', HS_JETSTREAM_PLACEMENT_TAGS: ['ssd', 'az:eu-1a'] });
  });

  it('names each bad setting', () => {
    let error: unknown;
    try {
      loadConfig(baseConfigSchema, { ...valid, HS_JETSTREAM_STORAGE: 'disk', HS_JETSTREAM_PLACEMENT_TAGS: 'ssd, az', HS_JETSTREAM_PLACEMENT_CLUSTER: 'eu west' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { variable: 'HS_JETSTREAM_STORAGE', problem: 'must be file or memory' },
      { variable: 'HS_JETSTREAM_PLACEMENT_CLUSTER', problem: 'must be a cluster name' },
      { variable: 'HS_JETSTREAM_PLACEMENT_TAGS', problem: 'must be comma-separated tags without spaces' },
    ]);
  });
});
