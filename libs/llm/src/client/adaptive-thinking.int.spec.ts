import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/main';
import type { RunningSimulator } from '../simulator/server';
import { createLlmClient, type LlmClient } from './client';

let sim: RunningSimulator;
let client: LlmClient;
const messages = [{ role: 'user' as const, content: 'Summarise the plan.' }];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, announce: false });
  client = createLlmClient({ baseURL: sim.url, apiKey: 'k', timeoutMs: 5_000, maxRetries: 0, sdkTraces: false });
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => sim.handler.reset());

/** What the simulator received, reduced to the thinking settings. */
const sent = () => {
  const body = sim.handler.lastRequest as { model: string; max_tokens: number; thinking?: unknown; output_config?: unknown } | undefined;
  return { model: body?.model, max_tokens: body?.max_tokens, thinking: body?.thinking, output_config: body?.output_config };
};

describe('thinking settings on the wire, against the simulator', () => {
  it('sends adaptive thinking and the effort in output_config to an adaptive model (Opus 5), and gets an answer', async () => {
    const result = await client.create({ model: 'claude-opus-5', effort: 'deep', maxTokens: 16_000, messages });
    expect(result.simulated).toBe(true);
    expect(sent()).toEqual({ model: 'claude-opus-5', max_tokens: 16_000, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  });

  it('keeps budget_tokens for an extended model (Haiku 4.5), raising max_tokens above the budget', async () => {
    await client.create({ model: 'claude-haiku-4-5-20251001', effort: 'standard', maxTokens: 1_000, messages });
    expect(sent()).toEqual({ model: 'claude-haiku-4-5-20251001', max_tokens: 6_096, thinking: { type: 'enabled', budget_tokens: 2_000 }, output_config: undefined });
  });

  it('sends a caller’s raw budget to a model that refuses one (Sonnet 5) as adaptive thinking', async () => {
    await client.create({ model: 'claude-sonnet-5', maxTokens: 16_000, thinking: { type: 'enabled', budget_tokens: 12_000 }, messages });
    expect(sent()).toEqual({ model: 'claude-sonnet-5', max_tokens: 16_000, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  });

  it('answers 400 naming thinking.type, like the API, when a budget reaches a model that refuses it', async () => {
    const sdk = await client.sdk();
    const call = sdk.messages.create({ model: 'claude-opus-4-7', max_tokens: 16_000, thinking: { type: 'enabled', budget_tokens: 8_000 }, messages });
    await expect(call).rejects.toMatchObject({ status: 400, message: expect.stringContaining('thinking.type') });
    expect(sim.handler.lastRequest).toBeUndefined();
    // Opus 4.6 only deprecates the budget (the SDK warns): the simulator still answers.
    const older = await sdk.messages.create({ model: 'claude-opus-4-6', max_tokens: 16_000, thinking: { type: 'enabled', budget_tokens: 8_000 }, messages });
    expect(older.id).toMatch(/^msg_sim_/);
  });
});
