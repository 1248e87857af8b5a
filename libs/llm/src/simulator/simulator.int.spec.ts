import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLlmClient } from '../client/client';
import { buildCachedPrompt } from '../client/cache-layers';
import { MODEL_TABLE } from '../client/models';
import { startSimulator } from './main';
import type { RunningSimulator } from './server';

const TEST_SCENARIOS = {
  'default.yaml': `
id: default
persona: "*"
situation: "*"
steps:
  - thinking: Considering the question.
    text: Default answer.
`,
  'tools.yaml': `
id: tools
persona: tester
situation: tools
steps:
  - text: Writing the file.
    tool_use:
      - name: Write
        input:
          file_path: src/a.ts
          content: "export const a = { nested: [1, 2, 3], quote: \\"x\\" };\\n"
          options: { overwrite: true, mode: 420 }
  - when:
      - tool_result: "FAIL"
        text: Tests failed, fixing.
        tool_use:
          - name: Edit
            input: { file_path: src/a.ts, old_string: "1, 2, 3", new_string: "1, 2" }
    text: All good.
`,
  'overloaded.yaml': `
id: overloaded
persona: tester
situation: overloaded
steps:
  - error: { status: 529, type: overloaded_error, times: 2, retry_after_ms: 5 }
    text: Survived the overload.
`,
};

interface SseFrame {
  type: string;
  message?: Record<string, unknown>;
  content_block?: { type: string };
  delta?: { type?: string; partial_json?: string; stop_reason?: string };
}

let sim: RunningSimulator;
let sdk: Anthropic;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-llm-scen-'));
  for (const [name, text] of Object.entries(TEST_SCENARIOS)) writeFileSync(join(dir, name), text);
  sim = await startSimulator({ port: 0, scenariosDir: dir, announce: false, retryAfterMs: 5 });
  sdk = new Anthropic({ baseURL: sim.url, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => sim.handler.reset());

const system = (persona: string, situation: string) => `You are a test.\nPersona: ${persona}\nSituation: ${situation}`;

describe('simulator speaks the Messages API to the real SDK', () => {
  it('answers messages.create with a labelled text block, a msg_sim_ id, the requested model and the simulated header', async () => {
    const { data, response } = await sdk.messages
      .create({ model: 'claude-test-model', max_tokens: 500, messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    expect(response.headers.get('x-headspace-simulated')).toBe('true');
    expect(data.id).toMatch(/^msg_sim_[0-9a-f]{24}$/);
    expect(data.model).toBe('claude-test-model');
    expect(data.stop_reason).toBe('end_turn');
    expect(data.content).toHaveLength(1); // thinking not enabled: no thinking block
    const block = data.content[0];
    expect(block.type === 'text' && block.text).toBe('[simulated] Default answer.');
    expect(data.usage.input_tokens).toBe(2); // "Hello" = 5 chars ≈ 2 tokens
    expect(data.usage.output_tokens).toBeGreaterThan(0);
  });

  it('returns a signed thinking block before the text when thinking is enabled', async () => {
    const msg = await sdk.messages.create({
      model: 'claude-test-model',
      max_tokens: 5000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: 'Think first' }],
    });
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const thinking = msg.content[0];
    expect(thinking.type === 'thinking' && thinking.thinking).toBe('[simulated] Considering the question.');
    expect(thinking.type === 'thinking' && thinking.signature).toMatch(/^sim_sig_/);
  });

  it('streams text, thinking and tool_use so that finalMessage() equals the non-streamed message', async () => {
    const params = {
      model: 'claude-test-model',
      max_tokens: 5000,
      thinking: { type: 'enabled' as const, budget_tokens: 2000 },
      system: system('tester', 'tools'),
      messages: [{ role: 'user' as const, content: 'Write the file' }],
    };
    const seen: string[] = [];
    const stream = sdk.messages.stream(params);
    stream.on('streamEvent', (e) => seen.push(e.type));
    const streamed = await stream.finalMessage();
    sim.handler.reset();
    const plain = await sdk.messages.create(params);

    expect(seen[0]).toBe('message_start');
    expect(seen.at(-2)).toBe('message_delta');
    expect(seen.at(-1)).toBe('message_stop');
    expect(seen.filter((t) => t === 'content_block_start')).toHaveLength(1 + 1); // text + tool_use (no thinking scripted)
    expect(streamed.stop_reason).toBe('tool_use');
    const tool = streamed.content.find((b) => b.type === 'tool_use');
    expect(tool?.type === 'tool_use' && tool.input).toEqual({
      file_path: 'src/a.ts',
      content: 'export const a = { nested: [1, 2, 3], quote: "x" };\n',
      options: { overwrite: true, mode: 420 },
    });
    expect(tool?.type === 'tool_use' && tool.id).toMatch(/^toolu_sim_/);
    expect(streamed.id).toBe(plain.id);
    expect(JSON.parse(JSON.stringify(streamed.content))).toEqual(
      JSON.parse(JSON.stringify(plain.content)).map((b: Record<string, unknown>) => {
        const { citations: _c, ...rest } = b;
        return rest;
      }),
    );
    expect(streamed.usage.output_tokens).toBe(plain.usage.output_tokens);
  });

  it('streams a thinking block with its signature through the SDK', async () => {
    const streamed = await sdk.messages
      .stream({
        model: 'claude-test-model',
        max_tokens: 5000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        messages: [{ role: 'user', content: 'Think' }],
      })
      .finalMessage();
    const thinking = streamed.content[0];
    expect(thinking.type).toBe('thinking');
    expect(thinking.type === 'thinking' && thinking.thinking).toBe('[simulated] Considering the question.');
    expect(thinking.type === 'thinking' && thinking.signature).toMatch(/^sim_sig_/);
  });

  it('branches on the last tool_result: a FAIL result gets the fix step', async () => {
    const first = await sdk.messages.create({
      model: 'm',
      max_tokens: 2000,
      system: system('tester', 'tools'),
      messages: [{ role: 'user', content: 'Write the file' }],
    });
    const toolUse = first.content.find((b) => b.type === 'tool_use');
    if (toolUse?.type !== 'tool_use') throw new Error('expected tool_use');
    const next = (result: string) =>
      sdk.messages.create({
        model: 'm',
        max_tokens: 2000,
        system: system('tester', 'tools'),
        messages: [
          { role: 'user', content: 'Write the file' },
          { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: result }] },
        ],
      });
    const failed = await next('1 test FAIL');
    expect(failed.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    const edit = failed.content[1];
    expect(edit.type === 'tool_use' && edit.name).toBe('Edit');
    const passed = await next('all passed');
    expect(passed.content).toHaveLength(1);
    expect(passed.content[0].type === 'text' && passed.content[0].text).toBe('[simulated] All good.');
    expect(passed.stop_reason).toBe('end_turn');
  });

  it('reports a cache write on the first request and a cache read of the same prefix on the second', async () => {
    const layers = buildCachedPrompt({
      systemPrompt: 'S'.repeat(4000),
      conventions: 'C'.repeat(2000),
      hooks: 'H'.repeat(800),
      tools: [{ name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: {} } }],
    });
    const body = (question: string) => ({
      model: 'claude-cache-test',
      max_tokens: 1000,
      system: layers.system,
      tools: layers.tools,
      messages: [{ role: 'user' as const, content: question }],
    });
    const first = await sdk.messages.create(body('What is in the repo?'));
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation?.ephemeral_5m_input_tokens).toBe(200); // 800 chars of hooks
    expect(first.usage.cache_creation?.ephemeral_1h_input_tokens).toBeGreaterThan(1500); // tools + 6000 chars
    expect(first.usage.cache_creation_input_tokens).toBe(
      (first.usage.cache_creation?.ephemeral_5m_input_tokens ?? 0) + (first.usage.cache_creation?.ephemeral_1h_input_tokens ?? 0),
    );
    expect(first.usage.input_tokens).toBe(5); // the question only

    const second = await sdk.messages.create(body('And what about the tests?'));
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.cache_creation?.ephemeral_1h_input_tokens).toBe(0);

    // The streamed form reports the same cache fields in message_start / message_delta.
    const streamed = await sdk.messages.stream(body('Third question here')).finalMessage();
    expect(streamed.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(streamed.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
  });

  it('counts tokens with count_tokens consistently with the usage of messages.create', async () => {
    const params = {
      model: 'claude-test-model',
      system: 'x'.repeat(400),
      messages: [{ role: 'user' as const, content: 'y'.repeat(40) }],
    };
    const counted = await sdk.messages.countTokens(params);
    expect(counted.input_tokens).toBe(110);
    const created = await sdk.messages.create({ ...params, max_tokens: 100 });
    expect(created.usage.input_tokens).toBe(counted.input_tokens);
  });

  it('rejects a malformed request with 400 in the Anthropic error shape, raised by the SDK as BadRequestError', async () => {
    const raw = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as { type: string; error: { type: string; message: string }; request_id: string };
    expect(body.type).toBe('error');
    expect(body.request_id).toBe(raw.headers.get('request-id'));
    expect(body.request_id).toMatch(/^req_sim_/);
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('max_tokens: Field required');

    const bad = sdk.messages.create({
      model: 'm',
      max_tokens: 1000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(bad).rejects.toBeInstanceOf(BadRequestError);
    await expect(bad).rejects.toMatchObject({ status: 400, error: { error: { type: 'invalid_request_error' } } });
  });

  it('answers the CLI probe HEAD and GET /api/hello with 200', async () => {
    const head = await fetch(`${sim.url}/api/hello`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const get = await fetch(`${sim.url}/api/hello`);
    expect(get.status).toBe(200);
  });

  it('takes the situation from the X-Headspace-Situation header when the runner cannot write the system prompt', async () => {
    const ask = (headers: Record<string, string>) =>
      fetch(`${sim.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          model: 'm',
          max_tokens: 500,
          messages: [{ role: 'system', content: 'Persona: tester' }, { role: 'user', content: 'go' }],
        }),
      }).then(async (r) => (await r.json()) as { content: Array<{ type: string; text?: string }> });
    const withHeader = await ask({ 'x-headspace-situation': 'tools' });
    expect(withHeader.content[0].text).toBe('[simulated] Writing the file.');
    const without = await ask({});
    expect(without.content[0].text).toBe('[simulated] Default answer.');
  });

  it('rejects more than four cache breakpoints and a 1h breakpoint after a 5m one', async () => {
    const block = (text: string, ttl: '5m' | '1h') => ({
      type: 'text' as const,
      text,
      cache_control: { type: 'ephemeral' as const, ttl },
    });
    await expect(
      sdk.messages.create({
        model: 'm',
        max_tokens: 100,
        system: [block('a', '1h'), block('b', '1h'), block('c', '5m'), block('d', '5m'), block('e', '5m')],
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toThrow(/maximum of 4 blocks/);
    await expect(
      sdk.messages.create({
        model: 'm',
        max_tokens: 100,
        system: [block('a', '5m'), block('b', '1h')],
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('sends the exact SSE event sequence on the wire, with partial JSON that reassembles', async () => {
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        max_tokens: 5000,
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        system: system('tester', 'tools'),
        messages: [{ role: 'user', content: 'Write the file' }],
      }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-headspace-simulated')).toBe('true');
    const frames = (await res.text()).trim().split('\n\n').map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine.replace(/^data: /, '')) as SseFrame;
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
    const compact = frames
      .map((f) => (f.type === 'content_block_delta' ? f.delta?.type : f.type === 'content_block_start' ? `start:${f.content_block?.type}` : f.type))
      .filter((t, i, all) => t !== all[i - 1]);
    expect(compact).toEqual([
      'message_start',
      'ping',
      'start:text',
      'text_delta',
      'content_block_stop',
      'start:tool_use',
      'input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(frames[0].message).toMatchObject({ content: [], stop_reason: null, usage: { output_tokens: 1 } });
    const json = frames.filter((f) => f.delta?.type === 'input_json_delta').map((f) => f.delta?.partial_json).join('');
    expect(JSON.parse(json)).toMatchObject({ file_path: 'src/a.ts' });
    expect(frames.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use', stop_sequence: null } });
  });

  it('gives the identical body for the identical request', async () => {
    const post = async () => {
      const res = await fetch(`${sim.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          max_tokens: 2000,
          system: system('tester', 'tools'),
          messages: [{ role: 'user', content: 'Write the file' }],
        }),
      });
      return res.text();
    };
    const a = await post();
    const b = await post();
    expect(a).toBe(b);
    expect(JSON.parse(a).content[1].name).toBe('Write');
  });
});

describe('the Headspace client against the simulator', () => {
  it('retries a scripted 529 overloaded_error and then succeeds', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 10_000, maxRetries: 3 });
    const result = await client.create({
      model: 'sonnet',
      maxTokens: 500,
      system: system('tester', 'overloaded'),
      messages: [{ role: 'user', content: 'Go' }],
    });
    expect(result.simulated).toBe(true);
    expect(result.model).toBe(MODEL_TABLE.sonnet.id);
    expect(result.message.model).toBe(MODEL_TABLE.sonnet.id);
    expect(result.message.model).toBe('claude-sonnet-4-6');
    expect(result.message.content[0].type === 'text' && result.message.content[0].text).toBe(
      '[simulated] Survived the overload.',
    );
  });

  it('maps an overload that outlasts the retries to LLM.OVERLOADED', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 10_000, maxRetries: 1 });
    const call = client.create({
      model: 'haiku',
      maxTokens: 500,
      system: system('tester', 'overloaded'),
      messages: [{ role: 'user', content: 'Go' }],
    });
    await expect(call).rejects.toBeInstanceOf(HeadspaceError);
    await expect(call).rejects.toMatchObject({ code: ErrorCodes.llmOverloaded, details: { status: 529 } });
  });

  it('retries queued 429 and 529 faults in streaming mode and returns the final message with usage', async () => {
    sim.handler.failNext(
      { status: 429, type: 'rate_limit_error', retryAfterMs: 5 },
      { status: 529, type: 'overloaded_error', retryAfterMs: 5 },
    );
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 10_000, maxRetries: 2 });
    const texts: string[] = [];
    const result = await client.stream(
      { model: 'opus', maxTokens: 1000, effort: 'quick', messages: [{ role: 'user', content: 'Hello there' }] },
      { onText: (t) => texts.push(t) },
    );
    expect(result.message.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(texts.join('')).toBe('[simulated] Default answer.');
    expect(result.usage.inputTokens).toBe(3);
    expect(result.usage.outputTokens).toBe(result.message.usage.output_tokens);
  });

  it('maps a response slower than the timeout to LLM.TIMEOUT', async () => {
    sim.handler.failNext({ delayMs: 1_500 });
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 200, maxRetries: 0 });
    await expect(
      client.create({ model: 'sonnet', maxTokens: 100, messages: [{ role: 'user', content: 'slow' }] }),
    ).rejects.toMatchObject({ code: ErrorCodes.llmTimeout });
  });

  it('maps a 400 from the server to LLM.BAD_REQUEST without retrying', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 10_000, maxRetries: 3 });
    await expect(
      client.create({ model: 'sonnet', maxTokens: 100, messages: [] }),
    ).rejects.toMatchObject({ code: ErrorCodes.llmBadRequest, details: { status: 400, type: 'invalid_request_error' } });
  });

  it('counts tokens through the client', async () => {
    const client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 10_000, maxRetries: 0 });
    expect(await client.countTokens({ model: 'haiku', messages: [{ role: 'user', content: 'z'.repeat(400) }] })).toBe(100);
  });
});

describe('simulator answering like a model', () => {
  it('takes the first-token time before answering and the output time before a stream ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hs-llm-slow-'));
    writeFileSync(join(dir, 'default.yaml'), TEST_SCENARIOS['default.yaml']);
    const slow = await startSimulator({ port: 0, scenariosDir: dir, announce: false, latency: { firstTokenMs: 120, outputTokensPerSecond: 50 } });
    try {
      const client = new Anthropic({ baseURL: slow.url, apiKey: 'test-key', maxRetries: 0 });
      let started = performance.now();
      const message = await client.messages.create({ model: 'claude-test-model', max_tokens: 500, messages: [{ role: 'user', content: 'Hello' }] });
      const generation = ((message.usage.output_tokens - 1) / 50) * 1000;
      expect(performance.now() - started).toBeGreaterThanOrEqual(120 + generation - 2);

      started = performance.now();
      const stream = client.messages.stream({ model: 'claude-test-model', max_tokens: 500, messages: [{ role: 'user', content: 'Hello' }] });
      let firstEventAt = 0;
      stream.on('streamEvent', () => (firstEventAt ||= performance.now() - started));
      await stream.finalMessage();
      expect(firstEventAt).toBeGreaterThanOrEqual(118);
      expect(performance.now() - started).toBeGreaterThanOrEqual(120 + generation - 2);
    } finally {
      await slow.close();
    }
  });
});
