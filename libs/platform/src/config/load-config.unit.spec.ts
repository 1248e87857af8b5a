import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseConfigSchema, natsServers, portSchema } from './base-config.schema';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

const valid = {
  HTTP_PORT: '3001',
  DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
};

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('parses a valid environment and applies defaults', () => {
    const config = loadConfig(baseConfigSchema, { ...valid, MIGRATE_ON_START: 'false', LOG_LEVEL: '' });
    expect(config).toMatchObject({
      HTTP_PORT: 3001,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: 10_000,
      MIGRATE_ON_START: false,
      PG_POOL_MAX: 10,
    });
    expect(config.SERVICE_INSTANCE_ID).toMatch(new RegExp(`-${process.pid}$`));
  });

  it('names every bad or missing variable in one message, without echoing values', () => {
    const error = configError(() =>
      loadConfig(
        baseConfigSchema,
        {
          HTTP_PORT: '70000',
          NATS_URL: 'nats://a:4222,http://b',
          LOG_LEVEL: 'loud',
          SHUTDOWN_TIMEOUT_MS: '-5',
          MIGRATE_ON_START: 'maybe',
        },
        'team-manager',
      ),
    );
    expect(error.code).toBe('CONFIG.INVALID');
    expect(error.message).toBe(
      'Invalid configuration for team-manager: ' +
        [
          'HTTP_PORT must be a number between 1 and 65535',
          'DATABASE_URL is required',
          'NATS_URL must be one or more comma-separated nats:// or tls:// URLs',
          'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
          'SHUTDOWN_TIMEOUT_MS must be a positive integer',
          'MIGRATE_ON_START must be true or false',
        ].join('; '),
    );
    expect(error.problems.map((p) => p.variable)).toHaveLength(6);
  });

  it('rejects a non-numeric port and a non-postgres database URL', () => {
    const error = configError(() =>
      loadConfig(baseConfigSchema, { ...valid, HTTP_PORT: 'abc', DATABASE_URL: 'mysql://x/y' }),
    );
    expect(error.message).toBe(
      'Invalid configuration: HTTP_PORT must be a number between 1 and 65535; ' +
        'DATABASE_URL must be a postgres:// or postgresql:// URL',
    );
    expect(error.message).not.toContain('mysql');
  });

  it('lets apps extend the base schema with their own defaults and variables', () => {
    const schema = baseConfigSchema.extend({ HTTP_PORT: portSchema(3004), FEATURE_X: z.string() });
    const { HTTP_PORT: _port, ...rest } = valid;
    expect(() => loadConfig(schema, rest)).toThrow('FEATURE_X is required');
    expect(loadConfig(schema, { ...rest, FEATURE_X: 'on' }).HTTP_PORT).toBe(3004);
  });

  it('splits a comma-separated NATS_URL into servers', () => {
    expect(natsServers('nats://a:4222, nats://b:4222,')).toEqual(['nats://a:4222', 'nats://b:4222']);
    expect(loadConfig(baseConfigSchema, { ...valid, NATS_URL: 'nats://a:4222,tls://b:4222' }).NATS_URL).toBe(
      'nats://a:4222,tls://b:4222',
    );
  });

  it('reads the event streams\' retention limits as durations and sizes, and names a bad one', () => {
    const unset = loadConfig(baseConfigSchema, valid);
    expect([unset.HS_STREAM_MAX_AGE, unset.HS_STREAM_MAX_BYTES]).toEqual([undefined, undefined]);
    expect(loadConfig(baseConfigSchema, { ...valid, HS_STREAM_MAX_AGE: '30d', HS_STREAM_MAX_BYTES: '10GB' })).toMatchObject({
      HS_STREAM_MAX_AGE: 30 * 86_400_000,
      HS_STREAM_MAX_BYTES: 10 * 1024 ** 3,
    });
    expect(loadConfig(baseConfigSchema, { ...valid, HS_STREAM_MAX_AGE: '90m', HS_STREAM_MAX_BYTES: '512MiB' })).toMatchObject({ HS_STREAM_MAX_AGE: 5_400_000, HS_STREAM_MAX_BYTES: 512 * 1024 ** 2 });
    const error = configError(() => loadConfig(baseConfigSchema, { ...valid, HS_STREAM_MAX_AGE: '30 days', HS_STREAM_MAX_BYTES: 'lots' }));
    expect(error.problems).toEqual([
      { variable: 'HS_STREAM_MAX_AGE', problem: 'must be a duration such as 30d, 12h, 90m or 0 (unlimited)' },
      { variable: 'HS_STREAM_MAX_BYTES', problem: 'must be a size such as 10GB, 512MB or 0 (unlimited)' },
    ]);
  });
});
