import { loadConfig } from '@headspace/platform';
import { describe, expect, it } from 'vitest';
import { SERVICE, configSchema } from './config';

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
};

describe('ops-leon config', () => {
  it('defaults HTTP_PORT to 3004', () => {
    expect(loadConfig(configSchema, env, SERVICE).HTTP_PORT).toBe(3004);
  });

  it('names HTTP_PORT when it is not a valid port', () => {
    expect(() => loadConfig(configSchema, { ...env, HTTP_PORT: 'abc' }, SERVICE)).toThrow(
      'Invalid configuration for ops-leon: HTTP_PORT must be a number between 1 and 65535',
    );
  });
});
