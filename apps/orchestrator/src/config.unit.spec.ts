import { loadConfig } from '@headspace/platform';
import { describe, expect, it } from 'vitest';
import { SERVICE, configSchema } from './config';

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
};

describe('orchestrator config', () => {
  it('names HS_SIMULATOR_LATENCY when it is neither "instant" nor "<first-token ms>,<output tokens/s>"', () => {
    expect(loadConfig(configSchema, { ...env, HS_SIMULATOR_LATENCY: '600,80' }, SERVICE).HS_SIMULATOR_LATENCY).toBe('600,80');
    expect(() => loadConfig(configSchema, { ...env, HS_SIMULATOR_LATENCY: 'slow' }, SERVICE)).toThrow(/HS_SIMULATOR_LATENCY must be "instant" or/);
  });

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

  it('defaults the session settings: 30 s leases swept every 5 s, 60 turns, hand-off at 80% of the context window', () => {
    expect(loadConfig(configSchema, env, SERVICE)).toMatchObject({
      SESSION_LEASE_MS: 30_000,
      SESSION_SWEEP_MS: 5_000,
      SESSION_MAX_TURNS: 60,
      SESSION_MAX_OUTPUT_TOKENS: 8_192,
      SESSION_HANDOFF_THRESHOLD: 0.8,
    });
  });

  it('keeps agent homes and workspaces under .headspace unless told otherwise', () => {
    const config = loadConfig(configSchema, env, SERVICE);
    expect(config.HS_AGENT_HOME).toMatch(/\.headspace[\\/]agents$/);
    expect(config.HS_WORKSPACES_DIR).toMatch(/\.headspace[\\/]runs$/);
    expect(loadConfig(configSchema, { ...env, HS_AGENT_HOME: '/srv/agents' }, SERVICE).HS_AGENT_HOME).toBe('/srv/agents');
  });

  it('turns the format-on-write command into the formatter and its arguments, and leaves it off by default', () => {
    expect(loadConfig(configSchema, env, SERVICE).HS_FORMAT_COMMAND).toBeUndefined();
    expect(loadConfig(configSchema, { ...env, HS_FORMAT_COMMAND: ' npx prettier  --write ' }, SERVICE).HS_FORMAT_COMMAND).toEqual(['npx', 'prettier', '--write']);
  });

  it('names a session lease shorter than a second', () => {
    expect(() => loadConfig(configSchema, { ...env, SESSION_LEASE_MS: '10' }, SERVICE)).toThrow(/SESSION_LEASE_MS/);
  });

  it('names a handoff threshold outside 0.1–0.99', () => {
    expect(() => loadConfig(configSchema, { ...env, SESSION_HANDOFF_THRESHOLD: '1.5' }, SERVICE)).toThrow(/SESSION_HANDOFF_THRESHOLD must be a number between 0.1 and 0.99/);
  });
});
