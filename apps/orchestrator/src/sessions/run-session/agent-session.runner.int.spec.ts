import { randomUUID } from 'node:crypto';
import { EventRegistry, sessionEvents, type SessionUsage } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionRecorder } from '../session-recorder';
import type { ConversationBlock } from '../session-conversation';
import { AgentSessionRunner, type SessionPorts } from './agent-session.runner';
import type { ModelCall, ModelReply, ToolOutcome } from './session-ports';

const schema = 'orchestrator';
let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase('sessionrunner');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry([...sessionEvents]) });
});
afterAll(() => db?.drop());

const usage = (input: number): SessionUsage => ({ inputTokens: input, outputTokens: 10, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 });
const toolUse = (id: string, name: string, input: object): ConversationBlock => ({ type: 'tool_use', id, name, input });
const text = (t: string): ConversationBlock => ({ type: 'text', text: t });
const reflection = '{"summary":"done","learnings":[]}';

/** A scripted model: reply n of the script answers the n-th call; every request it saw is kept. */
function scriptedModel(script: Array<{ content: ConversationBlock[]; stopReason: string; input?: number }>) {
  const seen: ModelCall[] = [];
  return {
    seen,
    port: {
      contextWindow: () => 1_000,
      async call(request: ModelCall): Promise<ModelReply> {
        seen.push(structuredClone(request));
        const step = script[Math.min(seen.length - 1, script.length - 1)];
        return { model: request.model, content: step.content, stopReason: step.stopReason, usage: usage(step.input ?? 100) };
      },
    },
  };
}

function ports(model: SessionPorts['model'], overrides: Partial<SessionPorts> = {}) {
  const sideEffects: string[] = [];
  const spent: Array<{ turn: number; model: string }> = [];
  const released: Array<{ reservationId: string; turn: number }> = [];
  const marked: Array<{ messageIds: string[]; throughVersion?: string; turn: number }> = [];
  const base: SessionPorts = {
    model,
    system: [text('You are Con.')],
    clock: () => new Date().toISOString(),
    tools: {
      definitions: () => [{ name: 'Write' }],
      async run(call): Promise<ToolOutcome> {
        sideEffects.push(call.id);
        return { content: `ran ${call.name}`, isError: false, filesModified: [`${call.id}.txt`], hooks: [] };
      },
      onStop: async () => undefined,
    },
    budget: {
      maySpend: async ({ model: m }) => ({ decision: 'allowed', model: m }),
      recordUsage: async ({ turn, model: m }) => void spent.push({ turn, model: m }),
      release: async ({ reservationId, turn }) => void released.push({ reservationId, turn }),
    },
    mail: {
      peek: async () => ({ messageIds: [], throughVersion: '0' }),
      markRead: async (mail, turn) => void (mail.messageIds.length && marked.push({ messageIds: mail.messageIds, throughVersion: mail.throughVersion, turn })),
    },
    reflection: {
      retryPrompt: (error) => `Your reflection was malformed (${error}). Answer with the reflection JSON only.`,
      parse: (t) => {
        try {
          return { ok: true, reflection: JSON.parse(t.slice(t.indexOf('{'))) };
        } catch (error) {
          return { ok: false, error: (error as Error).message };
        }
      },
    },
    handoff: {
      request: (p) => `Context at ${p}%: write the handoff JSON.`,
      parse: (t) => (t.startsWith('{') ? { ok: true, handoff: JSON.parse(t) } : { ok: false, error: 'not JSON' }),
    },
    ...overrides,
  };
  return { ports: base, sideEffects, spent, released, marked };
}

async function startSession(sessionId: string) {
  const recorder = await SessionRecorder.load(store, sessionId);
  await recorder.record({
    type: 'start-session',
    sessionId,
    team: 'red',
    persona: 'con',
    kind: 'task',
    taskId: 't-1',
    model: 'claude-sonnet-4-5',
    effort: 'standard',
    runtime: 'built-in',
    simulated: true,
    prompt: 'Write two files',
    now: new Date().toISOString(),
  });
  return recorder;
}

const limits = { maxTurns: 10, maxOutputTokens: 1_000, handoffThreshold: 0.8 };

describe('agent session runner', () => {
  it('runs tool calls, records every turn and ends with the reflection', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([
      { content: [toolUse('a', 'Write', { f: 1 }), toolUse('b', 'Write', { f: 2 })], stopReason: 'tool_use' },
      { content: [text(`All written.\n${reflection}`)], stopReason: 'end_turn' },
    ]);
    const { ports: p, sideEffects, spent } = ports(model.port);
    const outcome = await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(outcome).toMatchObject({ exitReason: 'completed', turns: 2 });
    expect(sideEffects).toEqual(['a', 'b']);
    expect(spent.map((s) => s.turn)).toEqual([1, 2]);
    // The second call carried both tool results.
    expect(model.seen[1].messages.at(-1)!.content.map((b) => b.tool_use_id)).toEqual(['a', 'b']);
    const state = (await SessionRecorder.load(store, sessionId)).state;
    expect(state).toMatchObject({ status: 'ended', reflected: true, filesModified: ['a.txt', 'b.txt'], toolsUsed: ['Write'] });
  });

  it('a runner that dies mid-turn is resumed from the stream without repeating a completed tool call', async () => {
    const sessionId = randomUUID();
    const script = [
      { content: [toolUse('a', 'Write', { f: 1 }), toolUse('b', 'Write', { f: 2 })], stopReason: 'tool_use' },
      { content: [text(`Done.\n${reflection}`)], stopReason: 'end_turn' },
    ];
    const first = scriptedModel(script);
    const crashing = ports(first.port);
    const realRun = crashing.ports.tools.run;
    crashing.ports.tools.run = async (call) => {
      if (call.id === 'b') throw new Error('orchestrator killed');
      return realRun(call);
    };
    // The crash ends the first runner's loop with an error before it can end the session:
    // simulate the kill by not letting it record the end.
    const recorder = await startSession(sessionId);
    recorder.record = ((original) => async (command) => {
      if (command.type === 'end-session') throw new Error('killed before ending');
      return original(command);
    })(recorder.record.bind(recorder));
    await expect(new AgentSessionRunner(recorder, crashing.ports, limits).run()).rejects.toThrow('killed before ending');
    expect(crashing.sideEffects).toEqual(['a']);

    const second = scriptedModel(script.slice(1));
    const resumed = ports(second.port);
    const outcome = await new AgentSessionRunner(await SessionRecorder.load(store, sessionId), resumed.ports, limits).run();
    expect(outcome).toMatchObject({ exitReason: 'completed', turns: 2 });
    expect(resumed.sideEffects).toEqual(['b']);
    // The resumed conversation is the original one: opening prompt, the first reply, both results.
    const messages = second.seen[0].messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2].content.map((b) => b.tool_use_id)).toEqual(['a', 'b']);
  });

  it('a runner stopped before its last turn settled settles that turn again when resumed, with the reservation it was given', async () => {
    const sessionId = randomUUID();
    const script = [
      { content: [toolUse('a', 'Write', { f: 1 })], stopReason: 'tool_use' },
      { content: [text(`Done.\n${reflection}`)], stopReason: 'end_turn' },
    ];
    const crashing = ports(scriptedModel(script).port);
    crashing.ports.budget.maySpend = async ({ model: m, turn }) => ({ decision: 'allowed', model: m, reservationId: `r-${turn}` });
    // The governor never answers the first settle: the runner dies with the reply recorded, its usage not.
    crashing.ports.budget.recordUsage = () => new Promise(() => undefined);
    crashing.ports.tools.run = async () => {
      throw new Error('orchestrator killed');
    };
    const recorder = await startSession(sessionId);
    recorder.record = ((original) => async (command) => {
      if (command.type === 'end-session') throw new Error('killed before ending');
      return original(command);
    })(recorder.record.bind(recorder));
    const dead = new AgentSessionRunner(recorder, crashing.ports, limits).run();
    await expect(Promise.race([dead, new Promise((r) => setTimeout(r, 300, 'hung on the settle'))])).resolves.toBe('hung on the settle');

    const resumed = ports(scriptedModel(script.slice(1)).port);
    const settled: Array<{ reservationId?: string; turn: number }> = [];
    resumed.ports.budget.recordUsage = async ({ reservationId, turn }) => void settled.push({ reservationId, turn });
    const outcome = await new AgentSessionRunner(await SessionRecorder.load(store, sessionId), resumed.ports, limits).run();
    expect(outcome).toMatchObject({ exitReason: 'completed', turns: 2 });
    expect(settled).toEqual([
      { reservationId: 'r-1', turn: 1 },
      { reservationId: undefined, turn: 2 },
    ]);
  });

  it('a malformed reflection is asked for once more, then recorded as malformed', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([
      { content: [text('Finished, no JSON')], stopReason: 'end_turn' },
      { content: [text('still no JSON')], stopReason: 'end_turn' },
    ]);
    const { ports: p } = ports(model.port);
    const outcome = await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(outcome).toMatchObject({ exitReason: 'completed', turns: 2 });
    expect(JSON.stringify(model.seen[1].messages.at(-1))).toContain('Your reflection was malformed');
    const reflected = (await SessionRecorder.load(store, sessionId)).events.find((e) => e.type === 'session.reflected');
    expect(reflected?.data).toMatchObject({ malformed: true, raw: 'still no JSON' });
  });

  it('a Stop hook sends the model back to work before the session may end', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([
      { content: [text('I think I am done')], stopReason: 'end_turn' },
      { content: [text(`Tests now pass.\n${reflection}`)], stopReason: 'end_turn' },
    ]);
    let stops = 0;
    const { ports: p } = ports(model.port);
    p.tools.onStop = async () => (stops++ === 0 ? 'Run the tests before stopping.' : undefined);
    const outcome = await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(outcome.turns).toBe(2);
    expect(JSON.stringify(model.seen[1].messages.at(-1))).toContain('Run the tests before stopping.');
  });

  it('a paused budget ends the session as budget_paused without calling the model', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([{ content: [text('never')], stopReason: 'end_turn' }]);
    const { ports: p } = ports(model.port, {});
    p.budget.maySpend = async ({ model: m }) => ({ decision: 'paused', model: m, reason: 'Budget 95% consumed' });
    const outcome = await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(outcome).toMatchObject({ exitReason: 'budget_paused', summary: 'Budget 95% consumed', turns: 0 });
    expect(model.seen).toHaveLength(0);
  });

  it('a downgrade mid-session moves the next call to the cheaper model', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([
      { content: [toolUse('a', 'Write', {})], stopReason: 'tool_use' },
      { content: [text(`ok\n${reflection}`)], stopReason: 'end_turn' },
    ]);
    const { ports: p } = ports(model.port);
    let calls = 0;
    p.budget.maySpend = async ({ model: m }) =>
      calls++ === 0 ? { decision: 'allowed', model: m } : { decision: 'downgraded', model: 'claude-haiku-4-5', reason: '80% of the session budget' };
    await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(model.seen.map((s) => s.model)).toEqual(['claude-sonnet-4-5', 'claude-haiku-4-5']);
  });

  it('a call the governor routes at another effort level runs at that level (a downgrade to Haiku runs quick)', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([
      { content: [toolUse('a', 'Write', {})], stopReason: 'tool_use' },
      { content: [text(`ok\n${reflection}`)], stopReason: 'end_turn' },
    ]);
    const { ports: p } = ports(model.port);
    let calls = 0;
    p.budget.maySpend = async ({ model: m }) =>
      calls++ === 0
        ? { decision: 'allowed', model: m }
        : { decision: 'downgraded', model: 'claude-haiku-4-5', effort: 'quick', reason: '80% of the session budget' };
    await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(model.seen.map((s) => s.effort)).toEqual(['standard', 'quick']);
  });

  it('a model call that fails gives its reservation back and ends the session as error', async () => {
    const sessionId = randomUUID();
    const { ports: p, released, spent } = ports({
      contextWindow: () => 1_000,
      call: async () => {
        throw new Error('529 overloaded, retries exhausted');
      },
    });
    p.budget.maySpend = async ({ model: m, turn }) => ({ decision: 'allowed', model: m, reservationId: `r-${turn}` });
    const outcome = await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(outcome.exitReason).toBe('error');
    expect(released).toEqual([{ reservationId: 'r-1', turn: 1 }]);
    expect(spent).toEqual([]);
    const state = (await SessionRecorder.load(store, sessionId)).state;
    expect(state).toMatchObject({ status: 'ended', turns: 0 });
  });

  it('mail arriving between turns is injected into the next inference and marked read up to the version peeked', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([
      { content: [toolUse('a', 'Write', {})], stopReason: 'tool_use' },
      { content: [text(`ok\n${reflection}`)], stopReason: 'end_turn' },
    ]);
    const { ports: p, marked } = ports(model.port);
    let peeks = 0;
    p.mail.peek = async () =>
      peeks++ === 1
        ? { messageIds: ['m-1'], throughVersion: '3', text: '<teammate-message teammate_id="al" type="message">use tabs</teammate-message>' }
        : { messageIds: [], throughVersion: '3' };
    await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(JSON.stringify(model.seen[1].messages.at(-1))).toContain('use tabs');
    expect(marked).toEqual([{ messageIds: ['m-1'], throughVersion: '3', turn: 2 }]);
    const turn2 = (await SessionRecorder.load(store, sessionId)).events.find((e) => e.type === 'session.model-called' && e.data.turn === 2);
    expect(turn2?.data).toMatchObject({ injectedMessageIds: ['m-1'] });
  });

  it('mail peeked by a turn the budget pauses stays unread', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([{ content: [text('never')], stopReason: 'end_turn' }]);
    const { ports: p, marked } = ports(model.port);
    p.mail.peek = async () => ({ messageIds: ['m-9'], throughVersion: '1', text: '<teammate-message teammate_id="al" type="message">hi</teammate-message>' });
    p.budget.maySpend = async ({ model: m }) => ({ decision: 'paused', model: m, reason: 'Budget 95% consumed' });
    await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(marked).toEqual([]);
  });


  it('at the handoff threshold the model writes the handoff and the session ends as handoff', async () => {
    const sessionId = randomUUID();
    const model = scriptedModel([
      { content: [toolUse('a', 'Write', {})], stopReason: 'tool_use', input: 850 },
      { content: [text('{"task":"t-1","done":["a"],"next":["b"]}')], stopReason: 'end_turn', input: 900 },
    ]);
    const { ports: p } = ports(model.port);
    const outcome = await new AgentSessionRunner(await startSession(sessionId), p, limits).run();
    expect(outcome.exitReason).toBe('handoff');
    const handoff = (await SessionRecorder.load(store, sessionId)).events.find((e) => e.type === 'session.handed-off');
    expect(handoff?.data).toMatchObject({ handoff: { task: 't-1', next: ['b'] }, contextUsedPercent: 85 });
  });

  it('records tool output and model content with secrets redacted, answers the model from the record, and runs the tool with the input the model sent', async () => {
    const sessionId = randomUUID();
    const key = ['sk', 'ant', 'api03', 'Rk4Tn7Wq2Ys9Uv3Xz5Ab8Cd1'].join('-');
    const model = scriptedModel([
      { content: [text(`Writing ${key}`), { type: 'thinking', thinking: 'hm', signature: `sig-${key}` }, toolUse('w', 'Write', { env: `ANTHROPIC_API_KEY=${key}` })], stopReason: 'tool_use' },
      { content: [text(`Done.\n${reflection}`)], stopReason: 'end_turn' },
    ]);
    const ran: unknown[] = [];
    const { ports: p } = ports(model.port);
    p.tools.run = async (call) => {
      ran.push(call.input);
      return { content: `.env:\nDATABASE_URL=postgres://app:pw-${key.slice(-6)}@db/app\n${key}`, isError: true, filesModified: [], hooks: [] };
    };
    await new AgentSessionRunner(await startSession(sessionId), p, limits).run();

    expect(ran).toEqual([{ env: `ANTHROPIC_API_KEY=${key}` }]);
    const events = (await SessionRecorder.load(store, sessionId)).events;
    const recorded = JSON.stringify(events.map((e) => e.data));
    expect(recorded.replace(`sig-${key}`, '')).not.toContain(key);
    expect(recorded).not.toContain(`pw-${key.slice(-6)}`);
    const [reply] = events.filter((e) => e.type === 'session.model-called');
    expect(reply.type === 'session.model-called' && reply.data.content).toEqual([
      text('Writing [redacted:anthropic-key]'),
      { type: 'thinking', thinking: 'hm', signature: `sig-${key}` },
      toolUse('w', 'Write', { env: 'ANTHROPIC_API_KEY=[redacted:anthropic-key]' }),
    ]);
    const [tool] = events.filter((e) => e.type === 'session.tool-called');
    expect(tool.type === 'session.tool-called' && tool.data.content).toBe('.env:\nDATABASE_URL=[redacted:assignment]\n[redacted:anthropic-key]');
    // The model's next request is the conversation as recorded.
    expect(JSON.stringify(model.seen[1].messages.at(-1))).toContain('DATABASE_URL=[redacted:assignment]');
    expect(JSON.stringify(model.seen[1].messages).replace(`sig-${key}`, '')).not.toContain(key);
  });
});
