import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from './main';
import type { RunningSimulator } from './server';

/** The real SDK's `client.messages.batches.*` against the simulator over HTTP. */
describe('simulator Message Batches through the Anthropic SDK', () => {
  let sim: RunningSimulator;
  let client: Anthropic;

  beforeAll(async () => {
    sim = await startSimulator({ announce: false, batchProcessingMs: 300 });
    client = new Anthropic({ apiKey: 'sk-headspace-simulated', baseURL: sim.url, maxRetries: 0 });
  });
  afterAll(async () => sim?.close());

  const params = (text: string) => ({ model: 'claude-haiku-4-5', max_tokens: 256, system: 'Situation: batch', messages: [{ role: 'user' as const, content: text }] });

  it('creates, polls to ended and streams JSONL results whose usage is billed at the batch tier', async () => {
    const created = await client.messages.batches.create({ requests: [0, 1, 2].map((i) => ({ custom_id: `q-${i}`, params: params(`question ${i}`) })) });
    expect(created).toMatchObject({ processing_status: 'in_progress', request_counts: { processing: 3 } });
    let batch = created;
    while (batch.processing_status !== 'ended') {
      await new Promise((r) => setTimeout(r, 50));
      batch = await client.messages.batches.retrieve(created.id);
    }
    expect(batch.request_counts).toMatchObject({ succeeded: 3, processing: 0 });
    const lines = [];
    for await (const line of await client.messages.batches.results(created.id)) lines.push(line);
    expect(lines.map((l) => l.custom_id).sort()).toEqual(['q-0', 'q-1', 'q-2']);
    for (const line of lines) {
      expect(line.result.type).toBe('succeeded');
      if (line.result.type !== 'succeeded') continue;
      expect(line.result.message.id).toMatch(/^msg_sim_/);
      expect(line.result.message.usage.service_tier).toBe('batch');
      expect(line.result.message.usage.input_tokens).toBeGreaterThan(0);
      expect(line.result.message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^\[simulated\]/) });
    }
    const listed = [];
    for await (const b of client.messages.batches.list({ limit: 10 })) listed.push(b.id);
    expect(listed).toContain(created.id);
  });

  it('a request with bad params is errored in the results; cancel of an in-progress batch ends it with the rest canceled', async () => {
    const bad = await client.messages.batches.create({
      requests: [
        { custom_id: 'ok', params: params('fine') },
        { custom_id: 'bad', params: { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'no max_tokens' }] } as never },
      ],
    });
    await new Promise((r) => setTimeout(r, 350));
    const results = new Map<string, string>();
    for await (const line of await client.messages.batches.results(bad.id)) results.set(line.custom_id, line.result.type);
    expect(Object.fromEntries(results)).toEqual({ ok: 'succeeded', bad: 'errored' });

    const slow = await client.messages.batches.create({ requests: [{ custom_id: 'a', params: params('a') }] });
    const canceling = await client.messages.batches.cancel(slow.id);
    expect(['canceling', 'ended']).toContain(canceling.processing_status);
    const ended = await client.messages.batches.retrieve(slow.id);
    expect(ended).toMatchObject({ processing_status: 'ended', request_counts: { canceled: 1 } });
    await expect(client.messages.batches.retrieve('msgbatch_unknown')).rejects.toMatchObject({ status: 404 });
    await expect(client.messages.batches.create({ requests: [] })).rejects.toMatchObject({ status: 400 });
  });
});
