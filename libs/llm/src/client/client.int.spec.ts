import type { PriceTable } from '@headspace/contracts';
import { shutdownTelemetry, startTelemetry, withAgentAttributes } from '@headspace/telemetry';
import { metricSamples, metricValue, scrapeMetrics } from '@headspace/testing';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/main';
import type { RunningSimulator } from '../simulator/server';
import { buildCachedPrompt } from './cache-layers';
import { createLlmClient, toMessageParams } from './client';
import { MODEL_TABLE } from './models';
import type { LlmUsage } from './usage';

const exporter = new InMemorySpanExporter();
let sim: RunningSimulator;

beforeAll(async () => {
  startTelemetry({ serviceName: 'llm-client-spec', spanProcessors: [new SimpleSpanProcessor({ exporter })], env: {} });
  sim = await startSimulator({ port: 0, announce: false });
});
afterAll(async () => {
  await sim?.close();
  await shutdownTelemetry();
});
beforeEach(() => {
  exporter.reset();
  sim.handler.reset();
});

/** Sonnet at 3/15 USD per MTok; cache writes 1.25x (5m) and 2x (1h), reads 0.1x of input. */
const prices: PriceTable = {
  version: 1,
  currency: 'USD',
  multipliers: { cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, batch: 0.5 },
  models: [{ id: MODEL_TABLE.sonnet.id, tier: 'sonnet', aliases: ['sonnet'], effectiveFrom: '2026-01-01', inputPerMTok: 3, outputPerMTok: 15 }],
};
const sonnetUsd = (u: LlmUsage) =>
  (u.inputTokens * 3 + u.cacheCreation5mTokens * 3.75 + u.cacheCreation1hTokens * 6 + u.cacheReadTokens * 0.3 + u.outputTokens * 15) / 1_000_000;

describe('LLM client telemetry and request building', () => {
  it('records a "chat {model}" span with gen_ai request and usage attributes, cache tokens included', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'k', timeoutMs: 5_000, maxRetries: 0, sdkTraces: false, prices });
    const prompt = buildCachedPrompt({ systemPrompt: 'P'.repeat(2_000), hooks: 'H'.repeat(400) });
    const call = () =>
      withAgentAttributes({ 'gen_ai.agent.name': 'ada', 'headspace.persona': 'ada', 'gen_ai.conversation.id': 'session-1', 'headspace.run_id': 'run-1' }, () =>
        client.create({ model: 'sonnet', maxTokens: 20_000, effort: 'standard', system: prompt.system, messages: [{ role: 'user', content: 'Hi' }] }),
      );
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
      'gen_ai.usage.input_tokens': 601,
      'headspace.llm.uncached_input_tokens': 1,
      'gen_ai.usage.cache_creation.input_tokens': 600,
      'gen_ai.usage.cache_read.input_tokens': 0,
      'headspace.llm.effort': 'standard',
      'headspace.llm.output_effort': 'medium',
      'headspace.llm.simulated': true,
      'gen_ai.agent.name': 'ada',
      'gen_ai.conversation.id': 'session-1',
      'headspace.persona': 'ada',
      'headspace.run_id': 'run-1',
    });
    expect(spans[0].attributes['headspace.cost.usd']).toBeCloseTo(sonnetUsd(first.usage), 9);
    expect(spans[1].attributes['headspace.cost.usd']).toBeCloseTo(sonnetUsd(second.usage), 9);
    expect(spans[1].attributes['headspace.cost.usd']).toBeLessThan(spans[0].attributes['headspace.cost.usd'] as number);
    expect(Object.keys(spans[0].attributes).filter((k) => k.includes('cache') && k.startsWith('gen_ai.')).sort()).toEqual([
      'gen_ai.usage.cache_creation.input_tokens',
      'gen_ai.usage.cache_read.input_tokens',
    ]);
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

  it('records GenAI client metrics for created and streamed calls: duration, input and output tokens, cache tokens', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'k', timeoutMs: 5_000, maxRetries: 0, sdkTraces: false });
    const prompt = buildCachedPrompt({ systemPrompt: 'Q'.repeat(2_000), hooks: 'G'.repeat(400) });
    const request = { model: 'haiku', maxTokens: 1_000, system: prompt.system, messages: [{ role: 'user' as const, content: 'Hello' }] };
    const before = await scrapeMetrics();
    const created = await client.create(request);
    const streamed = await client.stream(request);
    const after = await scrapeMetrics();

    const haiku = MODEL_TABLE.haiku.id;
    const labels = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'anthropic', gen_ai_request_model: haiku, gen_ai_response_model: haiku };
    const delta = (name: string, l: Record<string, string>) => (metricValue(after, name, l) ?? 0) - (metricValue(before, name, l) ?? 0);
    expect(delta('gen_ai_client_operation_duration_count', labels)).toBe(2);
    expect(delta('gen_ai_client_operation_duration_sum', labels)).toBeGreaterThan(0);
    const input = { ...labels, gen_ai_token_type: 'input' };
    const output = { ...labels, gen_ai_token_type: 'output' };
    expect(delta('gen_ai_client_token_usage_count', input)).toBe(2);
    expect(delta('gen_ai_client_token_usage_sum', input)).toBe(created.usage.totalInputTokens + streamed.usage.totalInputTokens);
    expect(delta('gen_ai_client_token_usage_sum', output)).toBe(created.usage.outputTokens + streamed.usage.outputTokens);
    // The semantic conventions' buckets: every boundary from 1 to 67,108,864 tokens is exported.
    expect(metricSamples(after, 'gen_ai_client_token_usage_bucket').filter((s) => s.labels.gen_ai_token_type === 'input' && s.labels.gen_ai_request_model === haiku)).toHaveLength(15);
    expect(created.usage.cacheCreationTokens).toBeGreaterThan(0);
    expect(streamed.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(delta('headspace_llm_cache_tokens_total', { gen_ai_request_model: haiku, type: 'creation' })).toBe(created.usage.cacheCreationTokens + streamed.usage.cacheCreationTokens);
    expect(delta('headspace_llm_cache_tokens_total', { gen_ai_request_model: haiku, type: 'read' })).toBe(created.usage.cacheReadTokens + streamed.usage.cacheReadTokens);
  });

  it('records the duration of a failed call labelled with its error type, and no token usage', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'k', timeoutMs: 5_000, maxRetries: 0, sdkTraces: false });
    const model = MODEL_TABLE.opus.id;
    const before = await scrapeMetrics();
    sim.handler.failNext({ status: 429, type: 'rate_limit_error' });
    await expect(client.stream({ model: 'opus', maxTokens: 100, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ code: 'LLM.RATE_LIMITED' });
    const after = await scrapeMetrics();
    const failed = { gen_ai_request_model: model, error_type: 'LLM.RATE_LIMITED', gen_ai_operation_name: 'chat' };
    expect((metricValue(after, 'gen_ai_client_operation_duration_count', failed) ?? 0) - (metricValue(before, 'gen_ai_client_operation_duration_count', failed) ?? 0)).toBe(1);
    expect(metricSamples(after, 'gen_ai_client_token_usage_count').filter((s) => s.labels.gen_ai_request_model === model)).toEqual([]);
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
