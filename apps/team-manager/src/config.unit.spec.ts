import { loadConfig } from '@headspace/platform';
import { describe, expect, it } from 'vitest';
import { SERVICE, configSchema } from './config';

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
};

describe('team-manager config', () => {
  it('defaults HTTP_PORT to 3001', () => {
    expect(loadConfig(configSchema, env, SERVICE).HTTP_PORT).toBe(3001);
  });

  it('names HTTP_PORT when it is not a valid port', () => {
    expect(() => loadConfig(configSchema, { ...env, HTTP_PORT: 'abc' }, SERVICE)).toThrow(
      'Invalid configuration for team-manager: HTTP_PORT must be a number between 1 and 65535',
    );
  });

  it('carries the feature settings with their defaults, and names a bad one', () => {
    expect(loadConfig(configSchema, env, SERVICE)).toMatchObject({
      FILE_LOCK_STALE_MS: 300_000,
      TASK_LEASE_MS: 300_000,
      TASK_MAX_ATTEMPTS: 3,
      TEAMMATE_MAX_DEPTH: 3,
    });
    const bad = () => loadConfig(configSchema, { ...env, TASK_MAX_ATTEMPTS: 'many', FILE_LOCK_STALE_MS: '-1' }, SERVICE);
    expect(bad).toThrow(/TASK_MAX_ATTEMPTS/);
    expect(bad).toThrow(/FILE_LOCK_STALE_MS/);
  });
});
