import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/main';
import type { RunningSimulator } from '../simulator/server';
import { buildCachedPrompt } from './cache-layers';
import { createLlmClient, toMessageParams } from './client';
import { MODEL_TABLE } from './models';

const exporter = new InMemorySpanExporter();
let sim: RunningSimulator;

beforeAll(async () => {
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  sim = await startSimulator({ port: 0, announce: false });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  exporter.reset();
  sim.handler.reset();
});

describe('LLM client telemetry and request building', () => {
  it('records a "chat {model}" span with gen_ai request and usage attributes, cache tokens included', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'k', timeoutMs: 5_000, maxRetries: 0, sdkTraces: false });
    const prompt = buildCachedPrompt({ systemPrompt: 'P'.repeat(2_000), hooks: 'H'.repeat(400) });
    const call = () =>
      client.create({ model: 'sonnet', maxTokens: 20_000, effort: 'standard', system: prompt.system, messages: [{ role: 'user', content: 'Hi' }] });
    const first = await call();
    const second = await call();
    expect(first.usage).toMatchObject({ cacheCreation1hTokens: 500, cacheCreation5mTokens: 100, cacheReadTokens: 0 });
    expect(second.usage).toMatchObject({ cacheCreationTokens: 0, cacheReadTokens: 600 });

    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('chat '));
    expect(spans.map((s) => s.name)).toEqual([`chat ${MODEL_TABLE.sonnet.id}`, `chat ${MODEL_TABLE.sonnet.id}`]);
    expect(spans[0].attributes).toMatchObject({
      'gen_ai.system': 'anthropic',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': MODEL_TABLE.sonnet.id,
      'gen_ai.request.max_tokens': 20_000,
      'gen_ai.response.model': MODEL_TABLE.sonnet.id,
      'gen_ai.usage.input_tokens': 1,
      'gen_ai.usage.cache_creation.input_tokens': 600,
      'gen_ai.usage.cache_read.input_tokens': 0,
      'headspace.llm.effort': 'standard',
      'headspace.llm.output_effort': 'medium',
      'headspace.llm.simulated': true,
    });
    // Sonnet 4.6 thinks adaptively: an effort level, no token budget.
    expect(spans[0].attributes['headspace.llm.thinking_budget']).toBeUndefined();
    expect(spans[0].attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(spans[1].attributes['gen_ai.usage.cache_read.input_tokens']).toBe(600);
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('"k"');
  });

  it('marks the span as failed with the LLM error code when the call fails', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'k', timeoutMs: 5_000, maxRetries: 0, sdkTraces: false });
    sim.handler.failNext({ status: 529, type: 'overloaded_error' });
    await expect(client.create({ model: 'haiku', maxTokens: 100, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      code: 'LLM.OVERLOADED',
    });
    const span = exporter.getFinishedSpans().find((s) => s.name.startsWith('chat '));
    expect(span?.attributes['error.type']).toBe('LLM.OVERLOADED');
  });

  it('builds the SDK body with the resolved model, the inherited parent model and the effort budget', () => {
    const body = toMessageParams({
      model: 'inherit',
      parentModel: 'opus',
      maxTokens: 1_000,
      effort: 'deep',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(body.model).toBe(MODEL_TABLE.opus.id);
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual({ effort: 'high' });
    const older = toMessageParams({ model: 'inherit', parentModel: 'claude-opus-4-5', maxTokens: 1_000, effort: 'deep', messages: [{ role: 'user', content: 'x' }] });
    expect(older.thinking).toEqual({ type: 'enabled', budget_tokens: 50_000 });
    expect(older.max_tokens).toBeGreaterThan(50_000);
    expect(toMessageParams({ model: 'haiku', maxTokens: 500, messages: [] }).thinking).toBeUndefined();
  });
});
