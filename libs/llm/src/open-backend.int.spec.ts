import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLlmBackend } from './open-backend';

describe('openLlmBackend', () => {
  it('starts the in-process simulator when no API key is set and talks to it through the SDK', async () => {
    const lines: string[] = [];
    const opened = await openLlmBackend({ env: {}, timeoutMs: 5_000, maxRetries: 0, log: (l) => lines.push(l) });
    try {
      expect(opened.backend.mode).toBe('simulated');
      expect(opened.backend.baseURL).toBe(opened.simulator?.url);
      expect(lines[0]).toMatch(/^Headspace LLM simulator \(simulated responses\) listening on http:\/\/127\.0\.0\.1:\d+/);
      const result = await opened.client.create({
        model: 'haiku',
        maxTokens: 500,
        system: 'Persona: robbo\nSituation: workshop',
        messages: [{ role: 'user', content: 'An idea' }],
      });
      expect(result.simulated).toBe(true);
      const first = result.message.content[0];
      expect(first.type === 'text' && first.text).toMatch(/^\[simulated\] Before I write anything down/);
    } finally {
      await opened.close();
    }
  });

  it('uses the real API settings without starting a simulator when a key is set', async () => {
    const opened = await openLlmBackend({
      env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
      timeoutMs: 1_000,
      maxRetries: 0,
    });
    expect(opened.backend.mode).toBe('anthropic');
    expect(opened.simulator).toBeUndefined();
    expect(opened.client.baseURL).toBe('http://127.0.0.1:9');
    await opened.close();
  });

  it('plays scenarios from the HS_SIMULATOR_SCENARIOS directories of its env before the shipped ones', async () => {
    const extra = mkdtempSync(join(tmpdir(), 'hs-llm-open-extra-'));
    writeFileSync(join(extra, 'workshop.yaml'), 'id: example-workshop\npersona: robbo\nsituation: workshop\nsteps:\n  - text: The example script.\n');
    const unrelated = mkdtempSync(join(tmpdir(), 'hs-llm-open-empty-'));
    const opened = await openLlmBackend({ env: { HS_SIMULATOR_SCENARIOS: [unrelated, extra].join(delimiter) }, timeoutMs: 5_000, maxRetries: 0 });
    try {
      const result = await opened.client.create({
        model: 'haiku',
        maxTokens: 500,
        system: '# Team Member: Robbo\n\nSituation: workshop',
        messages: [{ role: 'user', content: 'An idea' }],
      });
      expect(result.message.content[0]).toMatchObject({ type: 'text', text: '[simulated] The example script.' });
    } finally {
      await opened.close();
      for (const dir of [extra, unrelated]) rmSync(dir, { recursive: true, force: true });
    }
  });
});
