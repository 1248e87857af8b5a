import { loadConfig } from '@headspace/platform';
import { describe, expect, it } from 'vitest';
import { SERVICE, configSchema } from './config';

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
};

describe('gateway config', () => {
  it('defaults HTTP_PORT to 3000, the body limit to 1 MiB, and CORS to off', () => {
    const config = loadConfig(configSchema, env, SERVICE);
    expect(config.HTTP_PORT).toBe(3000);
    expect(config.HS_BODY_LIMIT_BYTES).toBe(1_048_576);
    expect(config.HS_CORS_ORIGINS).toEqual([]);
    expect(config.HS_ADMIN_TOKEN).toBeUndefined();
  });

  it('names HTTP_PORT when it is not a valid port', () => {
    expect(() => loadConfig(configSchema, { ...env, HTTP_PORT: 'abc' }, SERVICE)).toThrow(
      'Invalid configuration for gateway: HTTP_PORT must be a number between 1 and 65535',
    );
  });

  it('reads CORS origins as a comma-separated list and names the variable when one is not an origin', () => {
    expect(loadConfig(configSchema, { ...env, HS_CORS_ORIGINS: 'https://a.example, http://localhost:5173' }, SERVICE).HS_CORS_ORIGINS).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(() => loadConfig(configSchema, { ...env, HS_CORS_ORIGINS: 'not an origin' }, SERVICE)).toThrow(/HS_CORS_ORIGINS/);
  });

  it('refuses a short HS_ADMIN_TOKEN and a non-numeric rate limit, naming each', () => {
    expect(() => loadConfig(configSchema, { ...env, HS_ADMIN_TOKEN: 'short' }, SERVICE)).toThrow(/HS_ADMIN_TOKEN/);
    expect(() => loadConfig(configSchema, { ...env, HS_RATE_LIMIT_MAX: 'lots' }, SERVICE)).toThrow(/HS_RATE_LIMIT_MAX/);
  });
});
