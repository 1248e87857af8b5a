import { describe, expect, it } from 'vitest';
import { describeLlmBackend, resolveLlmBackend, SIMULATOR_API_KEY } from './backend';

describe('resolveLlmBackend', () => {
  it('uses the real API when ANTHROPIC_API_KEY is set, honouring ANTHROPIC_BASE_URL', () => {
    expect(resolveLlmBackend({ ANTHROPIC_API_KEY: 'sk-ant-secret' })).toEqual({
      mode: 'anthropic',
      baseURL: undefined,
      apiKey: 'sk-ant-secret',
    });
    expect(
      resolveLlmBackend({ ANTHROPIC_API_KEY: 'sk-ant-secret', ANTHROPIC_BASE_URL: 'https://proxy.example' }).baseURL,
    ).toBe('https://proxy.example');
  });

  it('falls back to the simulator URL the caller passes when no key is set', () => {
    expect(resolveLlmBackend({ ANTHROPIC_API_KEY: '  ' }, { simulatorURL: 'http://127.0.0.1:4010' })).toEqual({
      mode: 'simulated',
      baseURL: 'http://127.0.0.1:4010',
      apiKey: SIMULATOR_API_KEY,
    });
    expect(resolveLlmBackend({ HEADSPACE_SIMULATOR_URL: 'http://sim:4010' }).baseURL).toBe('http://sim:4010');
  });

  it('describes a backend for logs without the key', () => {
    const described = describeLlmBackend(resolveLlmBackend({ ANTHROPIC_API_KEY: 'sk-ant-secret' }));
    expect(JSON.stringify(described)).not.toContain('sk-ant-secret');
    expect(described).toEqual({ mode: 'anthropic', baseURL: 'https://api.anthropic.com', apiKey: '[redacted]' });
  });
});
