import { loadConfig } from '@headspace/platform';
import { describe, expect, it } from 'vitest';
import { SERVICE, configSchema } from './config';

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
};

describe('cost-governor config', () => {
  it('defaults HTTP_PORT to 3003', () => {
    expect(loadConfig(configSchema, env, SERVICE).HTTP_PORT).toBe(3003);
  });

  it('names HTTP_PORT when it is not a valid port', () => {
    expect(() => loadConfig(configSchema, { ...env, HTTP_PORT: 'abc' }, SERVICE)).toThrow(
      'Invalid configuration for cost-governor: HTTP_PORT must be a number between 1 and 65535',
    );
  });

  it('reads the Fast Mode models as a set', () => {
    expect([...loadConfig(configSchema, { ...env, HS_FAST_MODE_MODELS: 'claude-opus-4-6, x' }, SERVICE).HS_FAST_MODE_MODELS]).toEqual(['claude-opus-4-6', 'x']);
    expect(loadConfig(configSchema, env, SERVICE).HS_FAST_MODE_MODELS.size).toBe(0);
  });
});
