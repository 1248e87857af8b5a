import { loadConfig } from '@headspace/platform';
import { describe, expect, it } from 'vitest';
import { SERVICE, configSchema } from './config';

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
};

describe('orchestrator config', () => {
  it('defaults HTTP_PORT to 3002', () => {
    expect(loadConfig(configSchema, env, SERVICE).HTTP_PORT).toBe(3002);
  });

  it('names HTTP_PORT when it is not a valid port', () => {
    expect(() => loadConfig(configSchema, { ...env, HTTP_PORT: 'abc' }, SERVICE)).toThrow(
      'Invalid configuration for orchestrator: HTTP_PORT must be a number between 1 and 65535',
    );
  });

  it('runs simulated unless an API key is set, and never shows the key in an error', () => {
    expect(loadConfig(configSchema, env, SERVICE).ANTHROPIC_API_KEY).toBeUndefined();
    expect(() => loadConfig(configSchema, { ...env, ANTHROPIC_API_KEY: 'sk-secret', ANTHROPIC_BASE_URL: 'not a url' }, SERVICE)).toThrow(/ANTHROPIC_BASE_URL must be an http\(s\) URL/);
    expect(() => loadConfig(configSchema, { ...env, ANTHROPIC_API_KEY: 'sk-secret', ANTHROPIC_BASE_URL: 'not a url' }, SERVICE)).not.toThrow(/sk-secret/);
  });

  it('names a handoff threshold outside 0.1–0.99', () => {
    expect(() => loadConfig(configSchema, { ...env, SESSION_HANDOFF_THRESHOLD: '1.5' }, SERVICE)).toThrow(/SESSION_HANDOFF_THRESHOLD must be a number between 0.1 and 0.99/);
  });
});
